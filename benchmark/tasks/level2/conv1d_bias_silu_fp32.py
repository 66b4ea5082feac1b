"""1D convolution (kernel 5, same padding) with bias followed by SiLU, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 2, "tags": ["conv", "conv1d", "bias", "activation"], "dtype": "float32", "difficulty": 1}

N, C, L = 32, 256, 4096


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, 5, padding=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.conv(x) * 2)


def get_inputs():
    return [torch.randn(N, C, L)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(1, C, 3)], [torch.randn(5, C, 1001)]]
