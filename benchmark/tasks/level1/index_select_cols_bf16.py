"""index_select of 16384 random columns from a bf16 matrix (a gather across the fast dim)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "index_select"], "dtype": "bfloat16", "difficulty": 2}

ROWS, COLS, PICKS = 4096, 32768, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return x.index_select(1, index)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16), torch.randint(0, COLS, (PICKS,))]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001, dtype=torch.bfloat16), torch.randint(0, 1001, (77,))],
        [torch.randn(100, 33, dtype=torch.bfloat16), torch.randint(0, 33, (50,))],
    ]
