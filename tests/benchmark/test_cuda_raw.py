"""The raw-CUDA helper: argument checking on CPU, a clear error without pycuda, a real kernel on GPU."""

import importlib.util

import pytest
import torch

from benchmark.cuda_raw import RawCudaError, RawModule, compile_cuda


@pytest.mark.skipif(importlib.util.find_spec("pycuda") is not None, reason="pycuda is installed")
def test_missing_pycuda_is_a_clear_error():
    with pytest.raises(RawCudaError, match=r"pip install 'solbench\[gpu\]'"):
        compile_cuda("__global__ void k() {}")


def test_argument_types_are_checked():
    class FakeFunction:
        def prepare(self, types):
            self.types = types

    class FakeModule:
        def get_function(self, name):
            return FakeFunction()

    with pytest.raises(RawCudaError, match="argument types"):
        RawModule(FakeModule()).kernel("k", "PPx")
    kernel = RawModule(FakeModule()).kernel("k", "Pq")
    with pytest.raises(RawCudaError, match="takes 2 arguments"):
        kernel(torch.zeros(1), grid=(1,), block=(1,))


@pytest.mark.gpu
def test_kernel_runs_on_torch_tensors():
    mod = compile_cuda(
        "__global__ void add_one(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }"
    )
    x = torch.zeros(1000, device="cuda")
    mod.kernel("add_one", "Pi")(x, x.numel(), grid=(4,), block=(256,))
    torch.cuda.synchronize()
    assert torch.equal(x, torch.ones_like(x))
