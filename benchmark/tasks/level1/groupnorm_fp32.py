"""Group normalization (32 groups of 8 channels) with a learned affine, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "groupnorm"], "dtype": "float32", "difficulty": 2}

N, C, H, W, GROUPS = 64, 256, 64, 64, 32


class Model(nn.Module):
    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.groups = groups
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(channels))
        self.bias = nn.Parameter(0.1 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.group_norm(x, self.groups, self.weight, self.bias, eps=1e-5)


def get_inputs():
    return [torch.randn(N, C, H, W) * 2 + 1]


def get_init_inputs():
    return [C, GROUPS]


def get_alt_inputs():
    return [[torch.randn(1, C, 37, 53) * 2 + 1], [torch.randn(5, C, 8, 9) * 2 + 1]]
