"""Zero out bf16 activations where a random boolean mask is set (a dropout-style mask)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "masked_fill"], "dtype": "bfloat16", "difficulty": 2}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return x.masked_fill(mask, 0.0)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16), torch.rand(ROWS, COLS) < 0.5]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001, dtype=torch.bfloat16), torch.rand(3, 1001) < 0.5],
        [torch.randn(17, 4099, dtype=torch.bfloat16), torch.rand(17, 4099) < 0.5],
    ]
