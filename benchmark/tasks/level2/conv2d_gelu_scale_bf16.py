"""3x3 convolution, GELU, then a constant output scale, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "bias", "activation", "scale"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

N, C, H, W = 128, 128, 56, 56


class Model(nn.Module):
    def __init__(self, channels: int, scale: float):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, dtype=torch.bfloat16)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.conv(x)) * self.scale


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return [C, 1.7]


def get_alt_inputs():
    return [
        [torch.randn(1, C, 5, 5, dtype=torch.bfloat16) * 2],
        [torch.randn(3, C, 17, 30, dtype=torch.bfloat16) * 2],
    ]
