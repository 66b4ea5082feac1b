"""Pointwise (1x1) convolution expanding 256 -> 512 channels in bf16: a GEMM in disguise."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv2d", "pointwise"], "dtype": "bfloat16", "difficulty": 3}

N, C_IN, C_OUT, H, W = 64, 256, 512, 64, 64


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 1, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C_IN, C_OUT]


def get_alt_inputs():
    return [
        [torch.randn(1, C_IN, 37, 53, dtype=torch.bfloat16)],
        [torch.randn(3, C_IN, 16, 9, dtype=torch.bfloat16)],
    ]
