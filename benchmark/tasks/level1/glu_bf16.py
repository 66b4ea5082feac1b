"""Gated linear unit over the last dim of bf16 activations: first half times sigmoid of the second."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["activation", "elementwise"], "dtype": "bfloat16", "difficulty": 1}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.glu(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1002, dtype=torch.bfloat16) * 2],
        [torch.randn(17, 4098, dtype=torch.bfloat16) * 2],
    ]
