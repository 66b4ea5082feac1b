"""Depthwise 3x3 convolution (one filter per channel, 256 channels) in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv2d", "depthwise"], "dtype": "bfloat16", "difficulty": 3}

N, CHANNELS, H, W, KERNEL = 32, 256, 112, 112, 3


class Model(nn.Module):
    def __init__(self, channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(
            channels, channels, kernel_size, padding=kernel_size // 2, groups=channels, dtype=torch.bfloat16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CHANNELS, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CHANNELS, KERNEL]


def get_alt_inputs():
    return [
        [torch.randn(1, CHANNELS, 37, 53, dtype=torch.bfloat16)],
        [torch.randn(3, CHANNELS, 16, 9, dtype=torch.bfloat16)],
    ]
