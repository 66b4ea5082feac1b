"""Stride-2 3x3 downsampling convolution followed by hardswish, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "strided", "bias", "activation"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

N, CIN, COUT, H, W = 128, 64, 128, 112, 112


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=2, padding=1, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardswish(self.conv(x) * 4)


def get_inputs():
    return [torch.randn(N, CIN, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [
        [torch.randn(1, CIN, 5, 8, dtype=torch.bfloat16)],
        [torch.randn(2, CIN, 31, 46, dtype=torch.bfloat16)],
    ]
