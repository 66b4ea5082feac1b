"""2D convolution with a rectangular 3x5 kernel on non-square fp16 images."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv2d"], "dtype": "float16", "difficulty": 3}

N, C_IN, C_OUT, H, W = 16, 96, 192, 112, 160


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, (3, 5), padding=(1, 2), dtype=torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, H, W, dtype=torch.float16)]


def get_init_inputs():
    return [C_IN, C_OUT]


def get_alt_inputs():
    return [
        [torch.randn(1, C_IN, 37, 53, dtype=torch.float16)],
        [torch.randn(3, C_IN, 5, 9, dtype=torch.float16)],
    ]
