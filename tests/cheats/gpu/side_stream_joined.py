"""Cheat: runs its (correct) kernel on a side stream and makes the current stream wait for it, so
nothing trails the current stream's end; launched behind the timer's device-side wait, the side
stream's kernel starts under that wait, before the start event fires."""

import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>
__global__ void scale_shift_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = 2.0f * x[i] + 1.0f;
}
torch::Tensor scale_shift_on(torch::Tensor x, int64_t stream) {
    auto y = torch::empty_like(x);
    scale_shift_kernel<<<1024, 256, 0, reinterpret_cast<cudaStream_t>(stream)>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}
"""
ext = load_inline(
    name="cheat_side_stream_joined",
    cpp_sources="torch::Tensor scale_shift_on(torch::Tensor x, int64_t stream);",
    cuda_sources=CUDA,
    functions=["scale_shift_on"],
    verbose=False,
)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.side = torch.cuda.Stream()

    def forward(self, x):
        y = ext.scale_shift_on(x, self.side.cuda_stream)
        torch.cuda.current_stream().wait_stream(self.side)
        return y
