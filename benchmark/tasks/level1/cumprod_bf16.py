"""Running product of bf16 values near 1, accumulated in fp32 and rounded once to bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["scan", "cumprod"], "dtype": "bfloat16", "difficulty": 3}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumprod(x, dim=-1, dtype=torch.float32).to(torch.bfloat16)


def get_inputs():
    return [torch.rand(ROWS, COLS, dtype=torch.bfloat16) * 0.1 + 0.95]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.rand(3, 1001, dtype=torch.bfloat16) * 0.1 + 0.95],
        [torch.rand(17, 4099, dtype=torch.bfloat16) * 0.1 + 0.95],
    ]
