"""Depthwise 3x3 convolution with bias and ReLU6 (a mobile-network layer), in fp16: bound by memory traffic."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "depthwise", "bias", "activation"],
    "dtype": "float16",
    "difficulty": 2,
}

N, C, H, W = 128, 256, 56, 56


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, groups=channels, dtype=torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu6(self.conv(x) * 4)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.float16)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(1, C, 4, 3, dtype=torch.float16)], [torch.randn(3, C, 29, 31, dtype=torch.float16)]]
