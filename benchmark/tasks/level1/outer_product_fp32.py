"""Outer product of two fp32 vectors into a 512 MB matrix (pure write bandwidth)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "float32", "difficulty": 1}

M, N = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.outer(a, b)


def get_inputs():
    return [torch.randn(M), torch.randn(N)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3), torch.randn(1001)],
        [torch.randn(1001), torch.randn(17)],
    ]
