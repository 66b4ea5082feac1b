"""Sort each bf16 row in descending order (values only)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["sort"], "dtype": "bfloat16", "difficulty": 3}

ROWS, COLS = 16384, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sort(x, dim=-1, descending=True).values


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001, dtype=torch.bfloat16)], [torch.randn(17, 4099, dtype=torch.bfloat16)]]
