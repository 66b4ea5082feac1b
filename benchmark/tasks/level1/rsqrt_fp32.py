"""Reciprocal square root of positive fp32 values."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.rsqrt(x)


def get_inputs():
    return [torch.rand(ROWS, COLS) * 4 + 0.01]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.rand(3, 1001) * 4 + 0.01], [torch.rand(17, 4099) * 4 + 0.01]]
