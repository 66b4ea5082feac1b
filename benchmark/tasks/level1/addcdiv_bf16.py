"""torch.addcdiv(x, t1, t2, value=0.25): x + 0.25 * t1 / t2 with positive denominators, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "bfloat16", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, t1: torch.Tensor, t2: torch.Tensor) -> torch.Tensor:
        return torch.addcdiv(x, t1, t2, value=0.25)


def get_inputs():
    return [
        torch.randn(ROWS, COLS, dtype=torch.bfloat16),
        torch.randn(ROWS, COLS, dtype=torch.bfloat16),
        torch.rand(ROWS, COLS, dtype=torch.bfloat16) + 0.5,
    ]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [
            torch.randn(3, 1001, dtype=torch.bfloat16),
            torch.randn(3, 1001, dtype=torch.bfloat16),
            torch.rand(3, 1001, dtype=torch.bfloat16) + 0.5,
        ],
        [
            torch.randn(17, 4099, dtype=torch.bfloat16),
            torch.randn(17, 4099, dtype=torch.bfloat16),
            torch.rand(17, 4099, dtype=torch.bfloat16) + 0.5,
        ],
    ]
