"""Decoder stage: nearest-neighbour 2x upsampling, 3x3 convolution with bias, ReLU, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "upsample", "bias", "activation"],
    "dtype": "float32",
    "difficulty": 2,
}

N, CIN, COUT, H, W = 16, 128, 64, 64, 64


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(F.interpolate(x, scale_factor=2, mode="nearest")))


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 1, 2)], [torch.randn(2, CIN, 11, 16)]]
