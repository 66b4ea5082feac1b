import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
torch::Tensor scale_shift(torch::Tensor x) {
    return x * 2 + undefined_symbol_here;
}
"""
ext = load_inline(name="scale_shift_broken_ext", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
