"""3x3 convolution, tanh, then a learned per-channel gain, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "activation", "scale", "broadcast"],
    "dtype": "float32",
    "difficulty": 1,
}

N, C, H, W = 16, 128, 64, 64


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.gain = nn.Parameter(torch.randn(channels, 1, 1) * 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.conv(x) * 2) * self.gain


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(1, C, 3, 3)], [torch.randn(2, C, 21, 40)]]
