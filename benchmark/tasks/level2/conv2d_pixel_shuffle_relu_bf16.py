"""Sub-pixel upsampling: 3x3 convolution to 4x channels, pixel shuffle by 2, ReLU, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "upsample", "reshape", "activation"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

N, C, H, W, R = 16, 64, 128, 128, 2


class Model(nn.Module):
    def __init__(self, channels: int, factor: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels * factor * factor, 3, padding=1, dtype=torch.bfloat16)
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(F.pixel_shuffle(self.conv(x), self.factor))


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, R]


def get_alt_inputs():
    return [
        [torch.randn(1, C, 3, 1, dtype=torch.bfloat16)],
        [torch.randn(2, C, 19, 26, dtype=torch.bfloat16)],
    ]
