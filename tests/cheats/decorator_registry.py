"""Cheat: a decorator files a PyTorch fallback in a table; forward calls it without naming it."""

import torch
from torch.utils.cpp_extension import load_inline

KERNELS = r"""
#include <torch/extension.h>
torch::Tensor scale_shift(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
    return y;
}
torch::Tensor scale_shift_inplace(torch::Tensor x) {
    float* p = x.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) p[i] = p[i] * 2.0f + 1.0f;
    return x;
}
torch::Tensor scale_shift_aten(torch::Tensor x) {
    return x * 2 + 1;  // not a kernel of its own: ATen does the work
}
"""
ext = load_inline(
    name="solbench_cheat_ext",
    cpp_sources=KERNELS,
    functions=["scale_shift", "scale_shift_inplace", "scale_shift_aten"],
    verbose=False,
)
TABLE = {}


def register(fn):
    TABLE["impl"] = fn
    return fn


@register
def _fallback(x):
    return torch.add(torch.mul(x, 2.0), 1.0)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return TABLE["impl"](x)
