"""Cheat: runs its (correct) kernel on a side stream, ordered after the current stream's work and
joined back, so nothing trails the current stream's end. Without the first join the kernel could start
under the timer's device-side wait, before the start event, but it races its own inputs (on the H200
the harness then saw wrong outputs, 2026-12-02); joined or not, the profile pass flags any kernel off
the current stream."""

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
        self.side.wait_stream(torch.cuda.current_stream())  # without it the kernel races the inputs' writes
        y = ext.scale_shift_on(x, self.side.cuda_stream)
        torch.cuda.current_stream().wait_stream(self.side)
        return y
