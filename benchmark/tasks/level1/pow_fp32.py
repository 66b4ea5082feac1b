"""Raise positive fp32 values to the power 2.5."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.pow(x, 2.5)


def get_inputs():
    return [torch.rand(ROWS, COLS) * 3 + 0.1]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.rand(3, 1001) * 3 + 0.1], [torch.rand(17, 4099) * 3 + 0.1]]
