"""FP8 input-gradient GEMM of a linear layer: dx = (dy * scale_dy) @ (w * scale_w) in bf16, where the
upstream gradient dy (M x N) is e5m2, the format with range for gradients, and the weight w (N x K,
nn.Linear's layout) is e4m3, each with a per-tensor fp32 scale (amax / the format's largest value).

The sum runs over w's first dimension, so w enters the product transposed: FP8 tensor cores on Hopper
read both operands K-major, and a kernel transposes w (or loads it transposed) on the way. The
reference dequantizes to fp32 and multiplies there (TF32 off); the speed-of-light floor counts its
2*M*N*K FLOPs at the FP8 tensor-core rate.

Tolerance: atol = rtol = 1e-2 on outputs of order 1: the products of an e5m2 and an e4m3 value are
exact in fp32, so an fp32-accumulating kernel differs from the reference by its summation order and
the final bf16 rounding (at most 2^-9 relative). Leaving out the scales fails. The reference
computes in fp32 throughout, so the harness's higher-precision run of it agrees bit for bit, and the
tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "gemm", "quantization", "backward"],
    "dtype": "float8_e5m2",
    "difficulty": 2,
    "atol": 1e-2,
    "rtol": 1e-2,
    "requires": ["fp8"],
}

M, N, K = 8192, 4096, 2048  # tokens, output features, input features
FORMAT_MAX = {torch.float8_e4m3fn: 448.0, torch.float8_e5m2: 57344.0}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, dy: torch.Tensor, w: torch.Tensor, scale_dy: torch.Tensor, scale_w: torch.Tensor
    ) -> torch.Tensor:
        dy_wide = dy.float() * scale_dy.float()
        w_wide = w.float() * scale_w.float()
        return (dy_wide @ w_wide).to(torch.bfloat16)


def _quantized(x, dtype):
    top = FORMAT_MAX[dtype]
    scale = x.abs().amax() / top
    return (x / scale).clamp(-top, top).to(dtype), scale


def _inputs(m, n, k):
    dy, scale_dy = _quantized(torch.randn(m, n) * (0.5 + 1.5 * torch.rand(())), torch.float8_e5m2)
    w, scale_w = _quantized(torch.randn(n, k) * (0.5 + 1.5 * torch.rand(())) / n**0.5, torch.float8_e4m3fn)
    return [dy, w, scale_dy, scale_w]


def get_inputs():
    return _inputs(M, N, K)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 64, 128), _inputs(77, 384, 208)]
