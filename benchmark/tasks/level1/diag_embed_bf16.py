"""Embed each bf16 vector of a batch as the diagonal of a square matrix (mostly zeros to write)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["layout", "diag"], "dtype": "bfloat16", "difficulty": 1}

ROWS, COLS = 256, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.diag_embed(x)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 17, dtype=torch.bfloat16)], [torch.randn(2, 5, 33, dtype=torch.bfloat16)]]
