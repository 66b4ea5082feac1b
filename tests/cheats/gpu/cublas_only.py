"""Cheat: no kernel of its own at all; cuBLAS does the product."""

import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cublas_v2.h>
__global__ void touch_kernel(float* c) {
    if (blockIdx.x == 0 && threadIdx.x == 0) c[0] += 0.0f;
}
torch::Tensor matmul(torch::Tensor a, torch::Tensor b) {
    const int m = a.size(0), k = a.size(1), n = b.size(1);
    auto c = torch::empty({m, n}, a.options());
    const float alpha = 1.0f, beta = 0.0f;
    cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle();
    // Row-major C = A B is column-major C^T = B^T A^T.
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.data_ptr<float>(), n,
                a.data_ptr<float>(), k, &beta, c.data_ptr<float>(), n);

    return c;
}
"""
ext = load_inline(
    name="cheat_cublas_only",
    cpp_sources="torch::Tensor matmul(torch::Tensor a, torch::Tensor b);",
    cuda_sources=CUDA,
    functions=["matmul"],
    extra_ldflags=["-lcublas"],
    verbose=False,
)


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return ext.matmul(a.contiguous(), b.contiguous())
