"""Hyperbolic tangent over fp16 values."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["activation", "elementwise"], "dtype": "float16", "difficulty": 1}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16) * 2]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001, dtype=torch.float16) * 2], [torch.randn(17, 4099, dtype=torch.float16) * 2]]
