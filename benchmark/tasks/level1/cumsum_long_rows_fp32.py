"""Inclusive prefix sum along rows of a million fp32 elements (a multi-block scan)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["scan", "cumsum"], "dtype": "float32", "difficulty": 3, "atol": 0.01}

ROWS, COLS = 64, 1048576


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001)], [torch.randn(2, 300007)]]
