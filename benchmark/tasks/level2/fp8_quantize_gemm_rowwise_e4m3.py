"""Fused FP8 quantize + GEMM, the input side of an FP8 linear layer: bf16 activations are quantized per
token to e4m3 on the fly against a power-of-two scale, x_scale = 2^ceil(log2(amax / 448)) with
amax = max|token| floored at 1e-4 and amax / 448 taken in fp32 (an E8M0 scale, as the MX formats and
DeepSeek's later FP8 recipes use; the cast rounds to nearest even and saturates at +-448), and
multiplied by the layer's e4m3 weight, which carries one fp32 scale per output channel;
out = (xq * x_scale) @ (weight * weight_scale)^T in bf16.

A kernel that fuses the two never writes the quantized activations: it reduces each token's amax,
casts the token to e4m3 while staging it for the FP8 tensor cores, accumulates in fp32, and applies
x_scale[m] * weight_scale[n] in the epilogue. The reference quantizes, dequantizes to fp32 and
multiplies there (TF32 off); the speed-of-light floor counts the GEMM's 2*M*N*K FLOPs at the FP8
tensor-core rate.

Tolerance: atol = rtol = 1e-2 on outputs of order 1. The scales are powers of two, so x / x_scale
and x * (1 / x_scale) are both exact and every correct kernel rounds each activation to the same
e4m3 value (with an amax / 448 scale, the two round bf16 inputs on different sides of ties often
enough to move 1% of the outputs by more than 1e-2); the e4m3 products are exact in fp32, so an
fp32-accumulating kernel differs from the reference by its summation order and the final bf16
rounding. A GEMM on unquantized activations (errors up to 2^-4 on every term) fails, and so does one
that leaves out the scales. The reference computes in fp32 throughout, so the harness's
higher-precision run of it agrees bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["fp8", "gemm", "quantization", "fused"],
    "dtype": "float8_e4m3fn",
    "difficulty": 3,
    "atol": 1e-2,
    "rtol": 1e-2,
    "requires": ["fp8"],
}

BATCH, SEQ, IN_FEATURES, OUT_FEATURES = 4, 1024, 4096, 4096
E4M3_MAX = 448.0
AMAX_FLOOR = 1e-4


def _pow2_scale(amax: torch.Tensor) -> torch.Tensor:
    """2^ceil(log2(amax / 448)): the least power of two that brings amax within e4m3's range."""
    # amax / 448 = mantissa * 2^exponent with mantissa in [0.5, 1): the power is 2^exponent, or half
    # of it where amax / 448 is a power of two itself
    mantissa, exponent = torch.frexp(amax / E4M3_MAX)
    return torch.ldexp(torch.ones_like(amax), exponent - (mantissa == 0.5).to(exponent.dtype))


def _quantize_rows(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return (x / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        w = torch.randn(out_features, in_features) * torch.exp(0.3 * torch.randn(out_features, 1))
        w = w / in_features**0.5
        weight_scale = w.abs().amax(dim=1, keepdim=True) / E4M3_MAX
        self.register_buffer("weight", _quantize_rows(w, weight_scale))  # e4m3, out_features x in_features
        self.register_buffer("weight_scale", weight_scale)  # fp32, out_features x 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.float()
        x_scale = _pow2_scale(x.abs().amax(dim=-1, keepdim=True).clamp_min(AMAX_FLOOR))
        x_wide = _quantize_rows(x, x_scale).float() * x_scale
        w_wide = self.weight.float() * self.weight_scale.float()
        return (x_wide @ w_wide.t()).to(torch.bfloat16)


def _inputs(*lead):
    x = torch.randn(*lead, IN_FEATURES) * torch.exp(torch.randn(*lead, 1))  # token sizes over e^-3..e^3
    return [x.to(torch.bfloat16)]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]


def get_alt_inputs():
    return [_inputs(3), _inputs(2, 77)]
