"""Scatter bf16 rows into a larger matrix along dim 0 at distinct per-column positions."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "scatter"], "dtype": "bfloat16", "difficulty": 2}

ROWS, COLS, PICKS = 16384, 4096, 4096


def distinct_positions(rows: int, cols: int, picks: int) -> torch.Tensor:
    return torch.rand(rows, cols).argsort(dim=0)[:picks]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, base: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
        return torch.scatter(base, 0, index, src)


def get_inputs():
    return [
        torch.randn(ROWS, COLS, dtype=torch.bfloat16),
        distinct_positions(ROWS, COLS, PICKS),
        torch.randn(PICKS, COLS, dtype=torch.bfloat16) + 10,
    ]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [
            torch.randn(1001, 3, dtype=torch.bfloat16),
            distinct_positions(1001, 3, 77),
            torch.randn(77, 3, dtype=torch.bfloat16),
        ],
        [
            torch.randn(33, 333, dtype=torch.bfloat16),
            distinct_positions(33, 333, 9),
            torch.randn(9, 333, dtype=torch.bfloat16),
        ],
    ]
