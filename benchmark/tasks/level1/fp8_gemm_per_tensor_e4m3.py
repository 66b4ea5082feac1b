"""FP8 GEMM with per-tensor scales: out = (a * scale_a) @ (b * scale_b)^T in bf16, where a (M x K
activations) and b (N x K weights, nn.Linear's layout) are e4m3 tensors and each scale is the fp32
dequantization factor (amax / 448) a per-tensor quantizer stored with them.

The products of two e4m3 values are exact in fp32, so the task is an FP8 tensor-core GEMM with fp32
accumulation and both scales applied once, in the epilogue. The reference dequantizes to fp32 and
multiplies there (TF32 off), which runs alike on the CPU and any GPU; the speed-of-light floor counts
its 2*M*N*K FLOPs at the FP8 tensor-core rate.

Tolerance: atol = rtol = 1e-2 on outputs of order 1. An fp32-accumulating kernel differs from the
reference by its summation order (about 1e-6) and the final bf16 rounding (at most 2^-9 relative);
1e-2 also leaves room for a tensor-core accumulator that is promoted to fp32 every 128 products.
Leaving out a scale (each lies far from 1) fails. The reference computes in fp32 throughout, so the
harness's higher-precision run of it agrees bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "gemm", "quantization"],
    "dtype": "float8_e4m3fn",
    "difficulty": 2,
    "atol": 1e-2,
    "rtol": 1e-2,
    "requires": ["fp8"],
}

M, N, K = 4096, 4096, 4096
E4M3_MAX = 448.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor
    ) -> torch.Tensor:
        a_wide = a.float() * scale_a.float()
        b_wide = b.float() * scale_b.float()
        return (a_wide @ b_wide.t()).to(torch.bfloat16)


def _quantized(rows, cols, std):
    """An e4m3 tensor of normal values with the given spread, and its per-tensor scale."""
    x = torch.randn(rows, cols) * std
    scale = x.abs().amax() / E4M3_MAX
    return (x / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale


def _inputs(m, n, k):
    a, scale_a = _quantized(m, k, 0.5 + 1.5 * torch.rand(()))
    b, scale_b = _quantized(n, k, (0.5 + 1.5 * torch.rand(())) / k**0.5)
    return [a, b, scale_a, scale_b]


def get_inputs():
    return _inputs(M, N, K)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 64, 128), _inputs(77, 208, 384)]
