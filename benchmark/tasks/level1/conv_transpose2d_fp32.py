"""Transposed 3x3 convolution with stride 2 and output padding 1 in fp32 (exact 2x upsampling)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv_transpose", "conv2d"], "dtype": "float32", "difficulty": 3}

N, C_IN, C_OUT, H, W, KERNEL = 16, 128, 64, 96, 96, 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.ConvTranspose2d(
            in_channels, out_channels, kernel_size, stride=2, padding=1, output_padding=1
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, H, W)]


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [[torch.randn(1, C_IN, 37, 53)], [torch.randn(3, C_IN, 6, 9)]]
