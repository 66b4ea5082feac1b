"""FP8 GEMM with row-wise scales: out = (a * scale_a) @ (b * scale_b)^T in bf16, where a (M x K
tokens) is e4m3 with one fp32 scale per token (scale_a, M x 1) and b (N x K weights) is e4m3 with one
per output channel (scale_b, N x 1): each row was quantized against its own amax, so tokens and
channels of very different magnitudes keep their precision.

The scales factor out of the sum, so a kernel accumulates the e4m3 products in fp32 and scales each
output element by scale_a[m] * scale_b[n] in the epilogue. The reference dequantizes to fp32 and
multiplies there (TF32 off); the speed-of-light floor counts its 2*M*N*K FLOPs at the FP8
tensor-core rate.

Tolerance: atol = 5e-2, rtol = 1e-2, for outputs whose rows range over several orders of
magnitude: a kernel differs from the reference by its summation order and the final bf16 rounding
(one bf16 step at most, 2^-8 relative), and FP8 tensor cores accumulate with fewer bits than fp32:
cuBLAS's FP8 GEMM (H100) put near-zero outputs of the largest rows up to 0.015 off (6 elements of
16.7M). One scale for all tokens (their mean) fails. The reference computes in fp32 throughout, so the harness's higher-precision run of it agrees
bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "gemm", "quantization"],
    "dtype": "float8_e4m3fn",
    "difficulty": 2,
    "atol": 5e-2,
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


def _quantized_rows(x):
    """x in e4m3, each row scaled by its own amax, and the per-row scales (rows x 1)."""
    scale = x.abs().amax(dim=1, keepdim=True) / E4M3_MAX
    return (x / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale


def _inputs(m, n, k):
    tokens = torch.randn(m, k) * torch.exp(torch.randn(m, 1))  # per-token magnitudes over e^-3..e^3
    weights = torch.randn(n, k) * torch.exp(0.5 * torch.randn(n, 1)) / k**0.5
    a, scale_a = _quantized_rows(tokens)
    b, scale_b = _quantized_rows(weights)
    return [a, b, scale_a, scale_b]


def get_inputs():
    return _inputs(M, N, K)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 64, 128), _inputs(77, 208, 384)]
