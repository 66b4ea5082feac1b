"""An FP8 linear layer with its epilogue: y = gelu_tanh((x * x_scale) @ (weight * weight_scale)^T + bias)
in bf16, where the input x (4096 tokens x 2048) arrives in e4m3 with a per-tensor fp32 scale (as the
previous FP8 layer wrote it), and the layer holds an e4m3 weight (8192 x 2048) with a per-tensor fp32
scale and a bf16 bias: the up-projection of a transformer MLP run in FP8.

A kernel accumulates the e4m3 products in fp32 on the FP8 tensor cores and applies, per output
element and before anything is rounded, the product of the two scales, the bias and the GELU. The
reference dequantizes to fp32 and computes there (TF32 off); the speed-of-light floor counts the
GEMM's 2*M*N*K FLOPs at the FP8 tensor-core rate.

Tolerance: atol = rtol = 1e-2 on outputs of order 1: the e4m3 products are exact in fp32, so an
fp32-accumulating kernel differs from the reference by its summation order, the final bf16 rounding
(at most 2^-9 relative), and the GELU's own rounding. Missing scales, a missing bias, or the bias
added after the activation fails. The reference computes in fp32 throughout, so the harness's
higher-precision run of it agrees bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["fp8", "gemm", "quantization", "epilogue", "bias", "gelu"],
    "dtype": "float8_e4m3fn",
    "difficulty": 2,
    "atol": 1e-2,
    "rtol": 1e-2,
    "requires": ["fp8"],
}

TOKENS, IN_FEATURES, OUT_FEATURES = 4096, 2048, 8192
E4M3_MAX = 448.0


def _quantize(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scale = x.abs().amax() / E4M3_MAX
    return (x / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        weight, weight_scale = _quantize(torch.randn(out_features, in_features) * 1.5 / in_features**0.5)
        self.register_buffer("weight", weight)  # e4m3
        self.register_buffer("weight_scale", weight_scale)  # fp32 scalar
        self.bias = nn.Parameter((torch.randn(out_features) * 0.5).to(torch.bfloat16))

    def forward(self, x: torch.Tensor, x_scale: torch.Tensor) -> torch.Tensor:
        x_wide = x.float() * x_scale.float()
        w_wide = self.weight.float() * self.weight_scale.float()
        h = x_wide @ w_wide.t() + self.bias.float()
        return F.gelu(h, approximate="tanh").to(torch.bfloat16)


def _inputs(tokens):
    x, x_scale = _quantize(torch.randn(tokens, IN_FEATURES) * (0.5 + torch.rand(())))
    return [x, x_scale]


def get_inputs():
    return _inputs(TOKENS)


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]


def get_alt_inputs():
    return [_inputs(3), _inputs(77)]
