"""Honest (CPU): two C++ functions per forward, writing into an output allocated in Python."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
void scale_into(torch::Tensor x, torch::Tensor y, double factor) {
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] * static_cast<float>(factor);
}
void shift_inplace(torch::Tensor y, double offset) {
    float* p = y.data_ptr<float>();
    for (int64_t i = 0; i < y.numel(); ++i) p[i] += static_cast<float>(offset);
}
"""
ext = load_inline(
    name="honest_two_steps", cpp_sources=SOURCE, functions=["scale_into", "shift_inplace"], verbose=False
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        ext.scale_into(x, y, 2.0)
        ext.shift_inplace(y, 1.0)
        return y
