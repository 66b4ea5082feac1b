"""Scale, tanh, then clamp to a narrower band, on a large fp32 tensor (three memory passes in eager)."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["elementwise", "scale", "activation", "clamp"],
    "dtype": "float32",
    "difficulty": 1,
}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self, scale: float, limit: float):
        super().__init__()
        self.scale, self.limit = scale, limit

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(torch.tanh(x * self.scale), -self.limit, self.limit)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return [1.5, 0.8]


def get_alt_inputs():
    return [[torch.randn(7)], [torch.randn(5, 3, 1001)]]
