"""Precision downgrade (CUDA): the row sum accumulated in fp16 under an fp32 task; must be incorrect."""

import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_fp16.h>
__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
    __shared__ __half partial[256];
    const float* row = x + (int64_t)blockIdx.x * cols;
    __half acc = __float2half(0.0f);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) acc = __hadd(acc, __float2half(row[c]));
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] = __hadd(partial[threadIdx.x], partial[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) y[blockIdx.x] = __half2float(partial[0]);
}
torch::Tensor row_sum(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat, "expects a CUDA float32 tensor");
    auto xc = x.contiguous();
    const int64_t cols = xc.size(-1), rows = xc.numel() / cols;
    auto sizes = xc.sizes().vec();
    sizes.pop_back();
    auto y = torch::empty(sizes, xc.options());
    row_sum_kernel<<<rows, 256, 0, at::cuda::getCurrentCUDAStream()>>>(xc.data_ptr<float>(), y.data_ptr<float>(), cols);
    return y;
}
"""
ext = load_inline(
    name="row_sum", cpp_sources="torch::Tensor row_sum(torch::Tensor x);", cuda_sources=CUDA,
    functions=["row_sum"], verbose=False,
)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.row_sum(x)
