"""Softmax down the columns (dim 0) of an fp32 matrix: a strided reduction."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["softmax", "reduction"], "dtype": "float32", "difficulty": 2, "atol": 1e-08}

ROWS, COLS = 4096, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=0)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 3]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001) * 3], [torch.randn(17, 4099) * 3]]
