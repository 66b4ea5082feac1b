"""The 50 largest logits of each 131072-entry bf16 row (top-k sampling over a vocabulary)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["sort", "topk"], "dtype": "bfloat16", "difficulty": 3}

ROWS, COLS = 2048, 131072


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.topk(x, 50, dim=-1).values


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001, dtype=torch.bfloat16)], [torch.randn(2, 200000, dtype=torch.bfloat16)]]
