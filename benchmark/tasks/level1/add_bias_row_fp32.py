"""Add a bias vector to every row of an fp32 matrix (row broadcast)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise", "broadcast"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return x + bias


def get_inputs():
    return [torch.randn(ROWS, COLS), torch.randn(COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001), torch.randn(1001)],
        [torch.randn(17, 4099), torch.randn(4099)],
    ]
