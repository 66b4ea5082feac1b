"""Honest (CUDA): the output is allocated with torch.empty in Python and filled by the kernel."""

import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void gelu_into_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(inner));
    }
}
void gelu_into(torch::Tensor x, torch::Tensor y) {
    const int64_t n = x.numel();
    const int64_t blocks = (n + 511) / 512;
    gelu_into_kernel<<<blocks, 512, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
}
"""
ext = load_inline(
    name="honest_cuda_gelu_into",
    cpp_sources="void gelu_into(torch::Tensor x, torch::Tensor y);",
    cuda_sources=CUDA,
    functions=["gelu_into"],
    verbose=False,
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        ext.gelu_into(x, y)
        return y
