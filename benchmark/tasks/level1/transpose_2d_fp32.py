"""Materialized transpose of a square fp32 matrix (x.t().contiguous()): coalescing both ways."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["layout", "transpose"], "dtype": "float32", "difficulty": 2}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001)], [torch.randn(17, 4099)]]
