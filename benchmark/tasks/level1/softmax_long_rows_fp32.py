"""Softmax over very long fp32 rows (262144 entries): a row does not fit in one block."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["softmax", "reduction"], "dtype": "float32", "difficulty": 2, "atol": 1e-10}

ROWS, COLS = 512, 262144


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 2]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001) * 2], [torch.randn(2, 300000) * 2]]
