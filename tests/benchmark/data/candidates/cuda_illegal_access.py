"""A raw CUDA kernel (pycuda, so it builds in under a second) that writes far outside its buffer:
an illegal memory access that corrupts the CUDA context. It must cost only its own sample."""

import torch

from benchmark.cuda_raw import compile_cuda

SOURCE = r"""
__global__ void scatter_far(float* y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i * 1000003LL + (1LL << 40)] = 1.0f;
}
"""
scatter_far = compile_cuda(SOURCE).kernel("scatter_far", "Pq")


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        scatter_far(y, n, grid=((n + 255) // 256,), block=(256,))
        return y
