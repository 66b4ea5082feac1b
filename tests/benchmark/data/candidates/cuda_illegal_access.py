"""A CUDA kernel that writes far outside its buffer: an illegal memory access that corrupts the
CUDA context. It must cost only its own sample."""

import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void scatter_far(float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i * 1000003LL + (1LL << 40)] = 1.0f;
}
torch::Tensor broken(torch::Tensor x) {
    auto y = torch::empty_like(x);
    scatter_far<<<(x.numel() + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(y.data_ptr<float>(), x.numel());
    return y;
}
"""
ext = load_inline(
    name="illegal_access",
    cpp_sources="torch::Tensor broken(torch::Tensor x);",
    cuda_sources=CUDA,
    functions=["broken"],
    verbose=False,
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.broken(x)
