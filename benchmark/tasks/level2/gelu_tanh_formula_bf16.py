"""The tanh-GELU written out op by op (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))), eight eager kernels, in bf16."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["elementwise", "activation", "polynomial"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))
        return 0.5 * x * (1.0 + torch.tanh(inner))


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(11, dtype=torch.bfloat16) * 2], [torch.randn(3, 1000, dtype=torch.bfloat16) * 2]]
