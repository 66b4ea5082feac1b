"""Elementwise select torch.where(mask, a, b) with a random boolean mask, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mask: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.where(mask, a, b)


def get_inputs():
    return [torch.rand(ROWS, COLS) < 0.3, torch.randn(ROWS, COLS), torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.rand(3, 1001) < 0.3, torch.randn(3, 1001), torch.randn(3, 1001)],
        [torch.rand(17, 4099) < 0.3, torch.randn(17, 4099), torch.randn(17, 4099)],
    ]
