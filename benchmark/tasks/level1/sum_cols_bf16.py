"""Column sums of a bf16 matrix: a reduction across rows (strided, coalescing matters)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "sum"], "dtype": "bfloat16", "difficulty": 2}

ROWS, COLS = 16384, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=0)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001, dtype=torch.bfloat16)], [torch.randn(17, 4099, dtype=torch.bfloat16)]]
