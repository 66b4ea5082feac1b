"""Suffix (reverse) prefix sum along rows of an fp32 matrix: sum of x[j] for j >= i."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["scan", "cumsum"], "dtype": "float32", "difficulty": 3, "atol": 0.001}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.flip(-1).cumsum(-1).flip(-1)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001)], [torch.randn(17, 4099)]]
