"""Sort each column of an fp16 matrix (a sort along the strided dim, values only)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["sort"], "dtype": "float16", "difficulty": 3}

ROWS, COLS = 4096, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sort(x, dim=0).values


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1001, 3, dtype=torch.float16)], [torch.randn(33, 257, dtype=torch.float16)]]
