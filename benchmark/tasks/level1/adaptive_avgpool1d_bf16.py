"""Adaptive 1D average pooling of 4000 steps to 48 bins (uneven windows) in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "avgpool", "adaptive"], "dtype": "bfloat16", "difficulty": 2}

N, C, L = 128, 512, 4000


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool1d(48)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, L, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 5, 1001, dtype=torch.bfloat16)],
        [torch.randn(1, 2, 50, dtype=torch.bfloat16)],
    ]
