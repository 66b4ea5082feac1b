"""Learned degree-5 polynomial activation evaluated with Horner's rule (ten eager elementwise passes), in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["elementwise", "polynomial"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self, degree: int):
        super().__init__()
        self.coeffs = nn.Parameter(torch.randn(degree + 1) / torch.arange(1, degree + 2).float())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.zeros_like(x) + self.coeffs[-1]
        for c in reversed(self.coeffs[:-1]):
            y = y * x + c
        return y


def get_inputs():
    return [torch.rand(ROWS, COLS) * 2 - 1]


def get_init_inputs():
    return [5]


def get_alt_inputs():
    return [[torch.rand(3) * 2 - 1], [torch.rand(17, 4099) * 2 - 1]]
