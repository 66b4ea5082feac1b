"""Row sum in C++: forgets the last column (a wrong answer)."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
torch::Tensor row_sum(torch::Tensor x) {
    auto xc = x.contiguous();
    const int64_t rows = xc.size(0), cols = xc.size(1);
    auto y = torch::empty({rows}, xc.options());
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = in + r * cols;
        double acc = 0.0;
        for (int64_t c = 0; c + 1 < cols; ++c) acc += row[c];
        out[r] = (float)acc;
    }
    return y;
}
"""
ext = load_inline(name="rowsum_drops_last_ext", cpp_sources=SOURCE, functions=["row_sum"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.row_sum(x)
