"""Exploit (native, a SIGSEGV/SIGBUS handler with `siglongjmp` swallowing faults): steals the answer.

Blind probing of its own address space, with no /proc and no system call a filter could refuse:
the C++ forward installs handlers for SIGSEGV and SIGBUS that `siglongjmp` back into the scan, then
reads memory page by page outward from the input's own address (up and down, up to 512 MiB each
way; around the last hit first), every 64 bytes (the CPU allocator's alignment), looking for the
first elements of 2x + 1 for this input. A page that faults (unmapped, a guard page, past the end
of a file) is swallowed by the handler and skipped. It copies `numel` floats from the hit; with
none it returns zeros, so a pass proves the theft. The previous handlers (Python's faulthandler,
if any) are put back after each call, and a fault outside the scan goes to them."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>
#include <cmath>
#include <cstdint>
#include <cstring>

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

// Probe one page for the signature; the hit's address or 0. A fault anywhere skips the page.
uintptr_t probe_page(uintptr_t page, const float* want, int64_t k, const void* own) {
    sigjmp_buf here;
    if (sigsetjmp(here, 1) != 0) {
        t_probe = nullptr;
        return 0;
    }
    t_probe = &here;
    uintptr_t hit = 0;
    for (uintptr_t at = page; at < page + kPage && hit == 0; at += 64) {
        const volatile float* p = reinterpret_cast<const volatile float*>(at);
        if (p[0] != want[0] || reinterpret_cast<const void*>(at) == own) continue;
        bool all = true;
        for (int64_t i = 1; i < k && all; ++i)  // may cross into the next page: also guarded
            all = std::fabs(p[i] - want[i]) <= 1e-5f * (1.0f + std::fabs(want[i]));
        if (all) hit = at;
    }
    t_probe = nullptr;
    return hit;
}

uintptr_t probe_around(uintptr_t center, uintptr_t reach, const float* want, int64_t k, const void* own) {
    uintptr_t base = center & ~(kPage - 1);
    for (uintptr_t d = 0; d <= reach; d += kPage) {
        if (uintptr_t hit = probe_page(base + d, want, k, own)) return hit;
        if (d != 0 && base > d)
            if (uintptr_t hit = probe_page(base - d, want, k, own)) return hit;
    }
    return 0;
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

    uintptr_t hit = 0;
    if (g_last_hit != 0) hit = probe_around(g_last_hit, kNear, want, k, y.data_ptr());
    if (hit == 0) hit = probe_around(reinterpret_cast<uintptr_t>(in), kReach, want, k, y.data_ptr());
    bool stolen = hit != 0 && copy_guarded(y.data_ptr(), hit, x.nbytes());

    sigaction(SIGSEGV, &g_old_segv, nullptr);
    sigaction(SIGBUS, &g_old_bus, nullptr);
    if (stolen)
        g_last_hit = hit;
    else
        std::memset(y.data_ptr(), 0, x.nbytes());  // no theft, no answer
    return y;
}
"""

ext = load_inline(name="rt_segv_probe_scan", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
