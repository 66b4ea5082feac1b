"""Affine InstanceNorm2d (per-sample, per-channel statistics) followed by leaky ReLU, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 2, "tags": ["norm", "instancenorm", "activation"], "dtype": "bfloat16", "difficulty": 2}

N, C, H, W = 64, 128, 128, 128


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.norm = nn.InstanceNorm2d(channels, affine=True, dtype=torch.bfloat16)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 2.0)
            self.norm.bias.normal_(0.0, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(self.norm(x), 0.2)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16) * 2 + 1]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [
        [torch.randn(1, C, 2, 3, dtype=torch.bfloat16) * 2 + 1],
        [torch.randn(2, C, 15, 22, dtype=torch.bfloat16) * 2 + 1],
    ]
