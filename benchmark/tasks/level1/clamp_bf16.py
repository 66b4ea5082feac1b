"""Clamp bf16 values to the asymmetric range [-0.5, 1.25]."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "bfloat16", "difficulty": 1}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, min=-0.5, max=1.25)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001, dtype=torch.bfloat16)], [torch.randn(17, 4099, dtype=torch.bfloat16)]]
