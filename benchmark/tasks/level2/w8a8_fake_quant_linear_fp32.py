"""Quantisation-aware linear layer: int8 fake-quant of activations (per token) and weights (per output channel) with power-of-two scales, then GEMM and bias, in fp32.

Power-of-two scales keep every rounding decision exact, so only the GEMM's summation order differs
between correct kernels."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["quantization", "gemm", "reduction", "bias"],
    "dtype": "float32",
    "difficulty": 3,
}

M, K, N = 2048, 4096, 4096


def fake_quant_int8(t: torch.Tensor) -> torch.Tensor:
    """Round t to int8 along its last dim with a shared power-of-two scale, and dequantise."""
    amax = t.abs().amax(dim=-1, keepdim=True)
    _, exponent = torch.frexp(amax)
    scale = torch.ldexp(torch.ones_like(amax), exponent - 7)  # amax / scale < 128
    return torch.clamp(torch.round(t / scale), -127, 127) * scale


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) / in_features**0.5)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return fake_quant_int8(x) @ fake_quant_int8(self.weight).t() + self.bias


def get_inputs():
    return [torch.randn(M, K) * 2]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(1, K) * 2], [torch.randn(3, 33, K) * 2]]
