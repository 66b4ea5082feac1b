"""Elementwise maximum of two fp16 tensors."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "float16", "difficulty": 1}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.maximum(a, b)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16), torch.randn(ROWS, COLS, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001, dtype=torch.float16), torch.randn(3, 1001, dtype=torch.float16)],
        [torch.randn(17, 4099, dtype=torch.float16), torch.randn(17, 4099, dtype=torch.float16)],
    ]
