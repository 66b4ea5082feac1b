"""Upper-triangular part above the second diagonal of a wide bf16 matrix."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["layout", "triangular"], "dtype": "bfloat16", "difficulty": 1}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.triu(x, diagonal=2)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001, dtype=torch.bfloat16)], [torch.randn(1001, 3, dtype=torch.bfloat16)]]
