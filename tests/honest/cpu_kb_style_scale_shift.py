"""Honest (CPU), in KernelBench's answer format: an unused `torch.nn.functional` import, the reference
copied beside ModelNew, the task's input helpers and a `__main__` self-check; a C++ loop does 2x + 1."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

scale_shift_source = r"""
torch::Tensor scale_shift_cpu(torch::Tensor x) {
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "scale_shift_cpu: float32 input expected");
    auto input = x.contiguous();
    auto output = torch::empty_like(input);
    const float* src = input.data_ptr<float>();
    float* dst = output.data_ptr<float>();
    const int64_t n = input.numel();
    for (int64_t i = 0; i < n; ++i) {
        dst[i] = src[i] * 2.0f + 1.0f;
    }
    return output;
}
"""

scale_shift_cpp_source = "torch::Tensor scale_shift_cpu(torch::Tensor x);"

# Compile the C++ kernel when the module is imported
scale_shift = load_inline(
    name="kb_style_scale_shift",
    cpp_sources=[scale_shift_cpp_source, scale_shift_source],
    functions=["scale_shift_cpu"],
    verbose=False,
)


class Model(nn.Module):
    """The reference: y = 2x + 1."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 2.0 + 1.0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale_shift = scale_shift

    def forward(self, x):
        return self.scale_shift.scale_shift_cpu(x)


batch_size = 64
dim = 33


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []


if __name__ == "__main__":
    x = get_inputs()[0]
    print("max abs error:", (ModelNew()(x) - Model()(x)).abs().max().item())
