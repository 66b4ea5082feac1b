"""Concatenate three bf16 matrices of different widths along the last (contiguous) dim."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["layout", "concat"], "dtype": "bfloat16", "difficulty": 1}

ROWS, W1, W2, W3 = 16384, 1000, 3096, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return torch.cat([a, b, c], dim=-1)


def get_inputs():
    return [
        torch.randn(ROWS, W1, dtype=torch.bfloat16),
        torch.randn(ROWS, W2, dtype=torch.bfloat16),
        torch.randn(ROWS, W3, dtype=torch.bfloat16),
    ]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, w, dtype=torch.bfloat16) for w in (1001, 1, 5)],
        [torch.randn(17, w, dtype=torch.bfloat16) for w in (33, 100, 2)],
    ]
