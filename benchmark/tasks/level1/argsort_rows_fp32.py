"""Ascending argsort of each 2048-long fp32 row (rows hold distinct values)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["sort", "argsort"], "dtype": "float32", "difficulty": 3}


def distinct_rows(rows: int, cols: int) -> torch.Tensor:
    """Rows of pairwise-distinct values in random order, so index outputs never depend on tie-breaking."""
    values = (torch.rand(rows, cols) + 0.25).cumsum(dim=-1) / cols**0.5
    return values.gather(-1, torch.rand(rows, cols).argsort(dim=-1)) - values.mean(dim=-1, keepdim=True)


ROWS, COLS = 8192, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argsort(x, dim=-1)


def get_inputs():
    return [distinct_rows(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[distinct_rows(3, 1001)], [distinct_rows(17, 4099)]]
