"""Pointwise (1x1) convolution 128 -> 256 channels in fp32 on NCHW data."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv2d", "pointwise"], "dtype": "float32", "difficulty": 3}

N, C_IN, C_OUT, H, W = 16, 128, 256, 128, 128


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, H, W)]


def get_init_inputs():
    return [C_IN, C_OUT]


def get_alt_inputs():
    return [[torch.randn(1, C_IN, 37, 53)], [torch.randn(3, C_IN, 16, 9)]]
