"""The 64 largest values of each 8192-long fp32 row, sorted descending."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["sort", "topk"], "dtype": "float32", "difficulty": 3}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.topk(x, 64, dim=-1).values


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001)], [torch.randn(17, 64)]]
