"""A raw CUDA kernel (pycuda) that never ends: forward launches it and returns, and the next
synchronize waits forever. It must cost only its own sample, however many lanes share the GPU."""

import torch

from benchmark.cuda_raw import compile_cuda

SOURCE = r"""
__global__ void endless(float* y, long long n) {
    volatile float* v = y;
    while (true) {
        if (threadIdx.x == 0 && n < 0) v[0] = 1.0f;
    }
}
"""
endless = compile_cuda(SOURCE).kernel("endless", "Pq")


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        endless(y, x.numel(), grid=(1,), block=(32,))
        return y
