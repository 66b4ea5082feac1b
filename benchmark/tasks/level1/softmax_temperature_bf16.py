"""Softmax of bf16 logits divided by a temperature (0.5, so the scaling is exact in bf16)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["softmax", "reduction"], "dtype": "bfloat16", "difficulty": 2, "atol": 1e-06}

ROWS, COLS, TEMPERATURE = 16384, 8192, 0.5


class Model(nn.Module):
    def __init__(self, temperature: float):
        super().__init__()
        self.temperature = temperature

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x / self.temperature, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16) * 1.5]


def get_init_inputs():
    return [TEMPERATURE]


def get_alt_inputs():
    return [
        [torch.randn(3, 1001, dtype=torch.bfloat16) * 1.5],
        [torch.randn(17, 4099, dtype=torch.bfloat16) * 1.5],
    ]
