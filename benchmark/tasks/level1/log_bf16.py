"""Natural logarithm of positive bf16 values spanning two orders of magnitude."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "bfloat16", "difficulty": 1}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log(x)


def get_inputs():
    return [torch.rand(ROWS, COLS, dtype=torch.bfloat16) * 10 + 0.05]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.rand(3, 1001, dtype=torch.bfloat16) * 10 + 0.05],
        [torch.rand(17, 4099, dtype=torch.bfloat16) * 10 + 0.05],
    ]
