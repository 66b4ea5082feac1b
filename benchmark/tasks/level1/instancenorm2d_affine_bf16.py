"""Instance normalization with a learned per-channel affine, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "instancenorm"], "dtype": "bfloat16", "difficulty": 2}

N, C, H, W = 128, 64, 128, 128


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(channels, dtype=torch.bfloat16))
        self.bias = nn.Parameter(0.1 * torch.randn(channels, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.instance_norm(x, weight=self.weight, bias=self.bias, eps=1e-5)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16) * 2 + 1]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [
        [torch.randn(1, C, 37, 53, dtype=torch.bfloat16) * 2 + 1],
        [torch.randn(5, C, 8, 9, dtype=torch.bfloat16) * 2 + 1],
    ]
