"""Fused FP8 quantize + GEMM, the input side of an FP8 linear layer: bf16 activations are quantized per
token to e4m3 on the fly (scale = max|token| / 448, the amax floored at 1e-4; rounded to nearest even,
saturating at +-448) and multiplied by the layer's e4m3 weight, which carries one fp32 scale per
output channel; out = (xq * x_scale) @ (weight * weight_scale)^T in bf16.

A kernel that fuses the two never writes the quantized activations: it reduces each token's amax,
casts the token to e4m3 while staging it for the FP8 tensor cores, accumulates in fp32, and applies
x_scale[m] * weight_scale[n] in the epilogue. The reference quantizes, dequantizes to fp32 and
multiplies there (TF32 off); the speed-of-light floor counts the GEMM's 2*M*N*K FLOPs at the FP8
tensor-core rate.

Tolerance: atol = rtol = 1e-2 on outputs of order 1: the e4m3 products are exact in fp32, so an
fp32-accumulating kernel differs from the reference by its summation order, the final bf16 rounding
(at most 2^-9 relative), and the few activations whose quantization lands on the other side of a tie
(one e4m3 step, 2^-3, on one term of a sum of 4096). A GEMM on unquantized activations (bf16 in
place of e4m3: errors of 2^-4 on every term) or one scale for all tokens fails. The reference
computes in fp32 throughout, so the harness's higher-precision run of it agrees bit for bit, and the
tolerance is the whole rule."""

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


def _quantize_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """x in e4m3 along its last dimension, one scale per row (the amax floored at AMAX_FLOOR)."""
    scale = x.abs().amax(dim=-1, keepdim=True).clamp_min(AMAX_FLOOR) / E4M3_MAX
    return (x / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        w = torch.randn(out_features, in_features) * torch.exp(0.3 * torch.randn(out_features, 1))
        weight, weight_scale = _quantize_rows(w / in_features**0.5)
        self.register_buffer("weight", weight)  # e4m3, out_features x in_features
        self.register_buffer("weight_scale", weight_scale)  # fp32, out_features x 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xq, x_scale = _quantize_rows(x.float())
        x_wide = xq.float() * x_scale
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
