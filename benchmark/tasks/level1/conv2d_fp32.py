"""2D convolution (3x3, 64 -> 128 channels, same padding) over 256x256 fp32 images."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv2d"], "dtype": "float32", "difficulty": 3}

N, C_IN, C_OUT, H, W, KERNEL = 8, 64, 128, 256, 256, 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, H, W)]


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [[torch.randn(1, C_IN, 37, 53)], [torch.randn(3, C_IN, 16, 9)]]
