"""Simulated FP8 (e4m3) storage: per-row power-of-two scaling into the e4m3 range, saturate, round to fp8 and back, rescale, in fp32.

The scale is a power of two, so x / scale is exact and the fp8 rounding (to nearest even, with
subnormals) is fully determined: a correct kernel matches the reference exactly."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["quantization", "fp8", "reduction", "clamp"],
    "dtype": "float32",
    "difficulty": 3,
}

ROWS, COLS = 16384, 8192
E4M3_MAX = 448.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        amax = x.abs().amax(dim=-1, keepdim=True)
        _, exponent = torch.frexp(amax)
        scale = torch.ldexp(torch.ones_like(amax), exponent - 9)  # amax / scale lies in [256, 512)
        q = torch.clamp(x / scale, -E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
        return q.to(x.dtype) * scale


def get_inputs():
    return [torch.randn(ROWS, COLS) * torch.rand(ROWS, 1) * 8]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, 3)], [torch.randn(5, 1001) * 100]]
