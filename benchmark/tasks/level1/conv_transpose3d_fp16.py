"""Transposed 3D convolution (4x4x4, stride 2) doubling every spatial dim, in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv_transpose", "conv3d"], "dtype": "float16", "difficulty": 3}

N, C_IN, C_OUT, D, H, W, KERNEL = 8, 32, 16, 32, 48, 48, 4


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.ConvTranspose3d(
            in_channels, out_channels, kernel_size, stride=2, padding=1, dtype=torch.float16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, D, H, W, dtype=torch.float16)]


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [
        [torch.randn(1, C_IN, 5, 7, 11, dtype=torch.float16)],
        [torch.randn(2, C_IN, 3, 4, 9, dtype=torch.float16)],
    ]
