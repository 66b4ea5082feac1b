"""2D convolution (3x3, 128 -> 256 channels, same padding) in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv2d"], "dtype": "bfloat16", "difficulty": 3}

N, C_IN, C_OUT, H, W, KERNEL = 32, 128, 256, 128, 128, 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(
            in_channels, out_channels, kernel_size, padding=kernel_size // 2, dtype=torch.bfloat16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [
        [torch.randn(1, C_IN, 37, 53, dtype=torch.bfloat16)],
        [torch.randn(3, C_IN, 16, 9, dtype=torch.bfloat16)],
    ]
