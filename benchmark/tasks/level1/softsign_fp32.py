"""Softsign x / (1 + |x|) over fp32 values (three eager kernels, one fused kernel)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["activation", "elementwise"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softsign(x)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 3]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001) * 3], [torch.randn(17, 4099) * 3]]
