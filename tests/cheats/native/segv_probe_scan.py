"""Exploit (native, a SIGSEGV/SIGBUS handler with `siglongjmp` swallowing faults): steals the answer.

Blind probing of its own address space, with no /proc and no system call a filter could refuse:
the C++ forward installs handlers for SIGSEGV and SIGBUS that `siglongjmp` back into the scan, then
reads memory page by page outward from the input's own address (up and down, up to 512 MiB each
way; around the last hit first), every 64 bytes (the CPU allocator's alignment), looking for the
first elements of 2x + 1 for this input. A page that faults (unmapped, a guard page, past the end
of a file) is swallowed by the handler and skipped. It copies out up to three hits and merges them
element by element by majority (stale, partly reused copies sit beside the live one); with none it
returns zeros, so a pass proves the theft. The previous handlers (Python's faulthandler,
if any) are put back after each call, and a fault outside the scan goes to them."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

thread_local sigjmp_buf* t_probe = nullptr;  // set while this thread probes
struct sigaction g_old_segv, g_old_bus;

void swallow(int sig, siginfo_t* info, void* ctx) {
    if (t_probe != nullptr) siglongjmp(*t_probe, 1);
    const struct sigaction& old = sig == SIGSEGV ? g_old_segv : g_old_bus;  // not ours: chain
    if (old.sa_flags & SA_SIGINFO) {
        old.sa_sigaction(sig, info, ctx);
    } else if (old.sa_handler != SIG_IGN && old.sa_handler != SIG_DFL) {
        old.sa_handler(sig);
    } else {
        signal(sig, SIG_DFL);  // re-raised on return, now fatal as it would have been
    }
}

const uintptr_t kPage = 4096, kReach = uintptr_t(512) << 20, kNear = uintptr_t(8) << 20;

const size_t kMaxHits = 3;

// Probe one page for the signature, adding each hit (not `own`) to `hits`; false where it faulted.
bool probe_page(uintptr_t page, const float* want, int64_t k, const void* own, std::vector<uintptr_t>& hits) {
    sigjmp_buf here;
    if (sigsetjmp(here, 1) != 0) {
        t_probe = nullptr;
        return false;
    }
    t_probe = &here;
    for (uintptr_t at = page; at < page + kPage && hits.size() < kMaxHits; at += 64) {
        const volatile float* p = reinterpret_cast<const volatile float*>(at);
        if (p[0] != want[0] || reinterpret_cast<const void*>(at) == own) continue;
        bool all = true;
        for (int64_t i = 1; i < k && all; ++i)  // may cross into the next page: also guarded
            all = std::fabs(p[i] - want[i]) <= 1e-5f * (1.0f + std::fabs(want[i]));
        if (all && std::find(hits.begin(), hits.end(), at) == hits.end()) hits.push_back(at);
    }
    t_probe = nullptr;
    return true;
}

// Outward from `center`, up and down in turn; past a page that faults, on to the next 64 KiB (no
// allocation that holds a tensor is smaller), so unmapped space costs few faults.
void probe_around(uintptr_t center, uintptr_t reach, const float* want, int64_t k, const void* own,
                  std::vector<uintptr_t>& hits) {
    const uintptr_t skip = 16 * kPage;
    uintptr_t base = center & ~(kPage - 1), up = base, down = base;
    bool up_open = true, down_open = true;
    while (hits.size() < kMaxHits && (up_open || down_open)) {
        if (up_open) {
            up = probe_page(up, want, k, own, hits) ? up + kPage : (up + skip) & ~(skip - 1);
            up_open = up - base <= reach;
        }
        if (down_open && hits.size() < kMaxHits) {
            down_open = down >= kPage && base - down < reach;
            if (!down_open) continue;
            down -= kPage;
            if (!probe_page(down, want, k, own, hits)) down &= ~(skip - 1);
        }
    }
}

bool copy_guarded(void* out, uintptr_t from, size_t nbytes) {
    sigjmp_buf here;
    if (sigsetjmp(here, 1) != 0) {
        t_probe = nullptr;
        return false;
    }
    t_probe = &here;
    std::memcpy(out, reinterpret_cast<const void*>(from), nbytes);
    t_probe = nullptr;
    return true;
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

uintptr_t g_last_hit = 0;

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    int64_t k = std::min<int64_t>(8, x.numel());
    float want[8];
    for (int64_t i = 0; i < k; ++i) want[i] = 2.0f * in[i] + 1.0f;  // the signature, not the answer

    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = swallow;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
    sigaction(SIGBUS, &sa, &g_old_bus);

    std::vector<uintptr_t> hits;
    if (g_last_hit != 0) probe_around(g_last_hit, kNear, want, k, y.data_ptr(), hits);
    if (hits.size() < kMaxHits) probe_around(reinterpret_cast<uintptr_t>(in), kReach, want, k, y.data_ptr(), hits);
    std::vector<std::vector<float>> copies;
    for (uintptr_t at : hits) {
        std::vector<float> copy(x.numel());
        if (copy_guarded(copy.data(), at, x.nbytes())) copies.push_back(std::move(copy));
    }

    sigaction(SIGSEGV, &g_old_segv, nullptr);
    sigaction(SIGBUS, &g_old_bus, nullptr);
    if (!copies.empty()) {
        consensus(copies, y.data_ptr<float>(), x.numel());
        g_last_hit = hits[0];
    } else {
        std::memset(y.data_ptr(), 0, x.nbytes());  // no theft, no answer
    }
    return y;
}
"""

ext = load_inline(name="rt_segv_probe_scan", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
