"""Group normalization (24 groups of 16 channels) with a learned affine, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "groupnorm"], "dtype": "bfloat16", "difficulty": 2}

N, C, H, W, GROUPS = 128, 384, 48, 48, 24


class Model(nn.Module):
    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.groups = groups
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(channels, dtype=torch.bfloat16))
        self.bias = nn.Parameter(0.1 * torch.randn(channels, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.group_norm(x, self.groups, self.weight, self.bias, eps=1e-5)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16) * 2 + 1]


def get_init_inputs():
    return [C, GROUPS]


def get_alt_inputs():
    return [
        [torch.randn(1, C, 37, 53, dtype=torch.bfloat16) * 2 + 1],
        [torch.randn(5, C, 8, 9, dtype=torch.bfloat16) * 2 + 1],
    ]
