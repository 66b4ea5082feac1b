"""Sort each 4096-long fp32 row ascending (values only)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["sort"], "dtype": "float32", "difficulty": 3}

ROWS, COLS = 8192, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sort(x, dim=-1).values


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001)], [torch.randn(17, 4099)]]
