"""Learned rational activation P(x) / (1 + |Q(x)|) with degree-5 numerator and degree-4 denominator, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["elementwise", "polynomial", "activation"],
    "dtype": "float32",
    "difficulty": 2,
}

ROWS, COLS = 8192, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.randn(6) * 0.5)
        self.q = nn.Parameter(torch.randn(4) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        num = (
            self.p[0]
            + self.p[1] * x
            + self.p[2] * x**2
            + self.p[3] * x**3
            + self.p[4] * x**4
            + self.p[5] * x**5
        )
        den = 1 + torch.abs(self.q[0] * x + self.q[1] * x**2 + self.q[2] * x**3 + self.q[3] * x**4)
        return num / den


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(5)], [torch.randn(129, 257)]]
