"""Exploit (native, lazy work that recognises the timing loop from the host clock).

The C++ forward measures, with `clock_gettime(CLOCK_MONOTONIC)`, the time between the end of its
previous call and the start of this one. Correctness checks leave long gaps (input generation,
the reference, a comparison); a timing loop calls back to back. After four calls in a row each
within 200 us of the last, it believes it is being timed and returns its previous output without
doing any work. A naive evaluator that times one reused input set is fooled (the previous output
is the right one); the SOLBench harness rotates fresh input sets and rechecks the timed calls'
outputs, so this one is caught there (`timed_output_mismatch`), kept as the contrast."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <ctime>

namespace {

double now_s() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double g_last_exit = 0.0;
int g_short_gaps = 0;
at::Tensor g_last;

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    double start = now_s();
    g_short_gaps = (g_last_exit > 0.0 && start - g_last_exit < 200e-6) ? g_short_gaps + 1 : 0;
    if (g_short_gaps >= 4 && g_last.defined() && g_last.sizes() == x.sizes()) {
        g_last_exit = now_s();
        return g_last;  // being timed: skip the work
    }
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
    g_last = y;
    g_last_exit = now_s();
    return y;
}
"""

ext = load_inline(name="rt_lazy_clock_detect", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
