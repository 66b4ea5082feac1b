"""Honest (CPU), in KernelBench's answer format, for the fixture task level1/row_softmax: the copied
reference calls torch.softmax and the `__main__` check calls F.softmax, neither of which ModelNew
runs; ModelNew reaches its C++ kernel through a module-level helper."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

row_softmax_source = r"""
#include <algorithm>
#include <cmath>
#include <limits>

torch::Tensor row_softmax_cpu(torch::Tensor x) {
    TORCH_CHECK(x.scalar_type() == torch::kFloat && x.dim() >= 1, "row_softmax_cpu: float32 input expected");
    auto input = x.contiguous();
    auto output = torch::empty_like(input);
    const int64_t cols = input.size(-1);
    const int64_t rows = cols == 0 ? 0 : input.numel() / cols;
    const float* src = input.data_ptr<float>();
    float* dst = output.data_ptr<float>();
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = src + r * cols;
        float* out = dst + r * cols;
        float peak = -std::numeric_limits<float>::infinity();
        for (int64_t c = 0; c < cols; ++c) peak = std::max(peak, row[c]);
        double total = 0.0;
        for (int64_t c = 0; c < cols; ++c) {
            out[c] = std::exp(row[c] - peak);
            total += out[c];
        }
        const float inv = static_cast<float>(1.0 / total);
        for (int64_t c = 0; c < cols; ++c) out[c] *= inv;
    }
    return output;
}
"""

row_softmax_cpp_source = "torch::Tensor row_softmax_cpu(torch::Tensor x);"

softmax_module = load_inline(
    name="kb_style_row_softmax",
    cpp_sources=[row_softmax_cpp_source, row_softmax_source],
    functions=["row_softmax_cpu"],
    verbose=False,
)


def row_softmax(x):
    return softmax_module.row_softmax_cpu(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return row_softmax(x)


def get_inputs():
    return [torch.randn(32, 100) * 3]


def get_init_inputs():
    return []


if __name__ == "__main__":
    x = get_inputs()[0]
    print("matches F.softmax:", torch.allclose(ModelNew()(x), F.softmax(x, dim=-1), atol=1e-6))
