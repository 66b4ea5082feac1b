"""Exponential of fp16 values in [-8, 4] (kept inside the fp16 range)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "float16", "difficulty": 1}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.exp(x)


def get_inputs():
    return [torch.rand(ROWS, COLS, dtype=torch.float16) * 12 - 8]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.rand(3, 1001, dtype=torch.float16) * 12 - 8],
        [torch.rand(17, 4099, dtype=torch.float16) * 12 - 8],
    ]
