"""Dilated (rate 2) 3x3 convolution with bias followed by ELU, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "dilated", "bias", "activation"],
    "dtype": "float32",
    "difficulty": 2,
}

N, C, H, W = 16, 64, 128, 128


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=2, dilation=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.elu(self.conv(x) * 2)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(1, C, 4, 6)], [torch.randn(3, C, 37, 19)]]
