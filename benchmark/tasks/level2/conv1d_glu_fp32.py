"""Gated convolution: conv1d to twice the channels, then GLU over channels (first half * sigmoid(second half)), in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv1d", "glu", "gating", "activation"],
    "dtype": "float32",
    "difficulty": 2,
}

N, C, L = 32, 256, 1024


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv1d(channels, 2 * channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.glu(self.conv(x) * 2, dim=1)


def get_inputs():
    return [torch.randn(N, C, L)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(1, C, 1)], [torch.randn(3, C, 333)]]
