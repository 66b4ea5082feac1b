"""Bias add followed by GELU on a large bf16 activation (the epilogue left over when a GEMM runs without bias)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["elementwise", "bias", "activation", "broadcast"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

ROWS, D = 16384, 8192


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(dim, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x + self.bias)


def get_inputs():
    return [torch.randn(ROWS, D, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [[torch.randn(1, D, dtype=torch.bfloat16) * 2], [torch.randn(3, 99, D, dtype=torch.bfloat16) * 2]]
