"""Linear interpolation torch.lerp(start, end, weight) with a per-element weight, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "bfloat16", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, start: torch.Tensor, end: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return torch.lerp(start, end, weight)


def get_inputs():
    return [
        torch.randn(ROWS, COLS, dtype=torch.bfloat16),
        torch.randn(ROWS, COLS, dtype=torch.bfloat16),
        torch.rand(ROWS, COLS, dtype=torch.bfloat16),
    ]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [
            torch.randn(3, 1001, dtype=torch.bfloat16),
            torch.randn(3, 1001, dtype=torch.bfloat16),
            torch.rand(3, 1001, dtype=torch.bfloat16),
        ],
        [
            torch.randn(17, 4099, dtype=torch.bfloat16),
            torch.randn(17, 4099, dtype=torch.bfloat16),
            torch.rand(17, 4099, dtype=torch.bfloat16),
        ],
    ]
