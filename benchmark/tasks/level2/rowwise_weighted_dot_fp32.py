"""Per-row weighted inner product sum_j x_ij * y_ij * w_j: elementwise work feeding a row reduction, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["reduction", "elementwise", "broadcast"],
    "dtype": "float32",
    "difficulty": 1,
}

ROWS, D = 65536, 2048


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return (x * y * self.weight).sum(dim=-1)


def get_inputs():
    return [torch.randn(ROWS, D), torch.randn(ROWS, D)]


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [[torch.randn(1, D), torch.randn(1, D)], [torch.randn(3, 100, D), torch.randn(3, 100, D)]]
