"""Pre-activation residual branch: x + GELU(GroupNorm(x)) on NCHW feature maps, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["norm", "groupnorm", "activation", "residual"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

N, C, H, W, GROUPS = 64, 512, 64, 64, 32


class Model(nn.Module):
    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels, dtype=torch.bfloat16)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 2.0)
            self.norm.bias.normal_(0.0, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + F.gelu(self.norm(x))


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, GROUPS]


def get_alt_inputs():
    return [[torch.randn(1, C, 1, 1, dtype=torch.bfloat16)], [torch.randn(3, C, 7, 11, dtype=torch.bfloat16)]]
