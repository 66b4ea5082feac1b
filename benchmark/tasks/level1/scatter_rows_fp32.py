"""Scatter 2048 values into each row of an fp32 matrix at distinct per-row positions (no collisions)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "scatter"], "dtype": "float32", "difficulty": 2}

ROWS, COLS, PICKS = 8192, 8192, 2048


def distinct_positions(rows: int, cols: int, picks: int) -> torch.Tensor:
    return torch.rand(rows, cols).argsort(dim=1)[:, :picks]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, base: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
        return base.scatter(1, index, src)


def get_inputs():
    return [torch.randn(ROWS, COLS), distinct_positions(ROWS, COLS, PICKS), torch.randn(ROWS, PICKS) + 10]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001), distinct_positions(3, 1001, 500), torch.randn(3, 500) + 10],
        [torch.randn(17, 65), distinct_positions(17, 65, 40), torch.randn(17, 40) + 10],
    ]
