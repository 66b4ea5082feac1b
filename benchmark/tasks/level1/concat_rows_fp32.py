"""Concatenate three fp32 matrices of different heights along dim 0."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["layout", "concat"], "dtype": "float32", "difficulty": 1}

H1, H2, H3, COLS = 2048, 3001, 1000, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return torch.cat([a, b, c], dim=0)


def get_inputs():
    return [torch.randn(H1, COLS), torch.randn(H2, COLS), torch.randn(H3, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001), torch.randn(1, 1001), torch.randn(5, 1001)],
        [torch.randn(17, 33), torch.randn(100, 33), torch.randn(2, 33)],
    ]
