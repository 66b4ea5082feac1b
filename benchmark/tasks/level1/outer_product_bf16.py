"""Outer product of two bf16 vectors into a 16384 x 16384 matrix."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "bfloat16", "difficulty": 1}

M, N = 16384, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.outer(a, b)


def get_inputs():
    return [torch.randn(M, dtype=torch.bfloat16), torch.randn(N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, dtype=torch.bfloat16), torch.randn(1001, dtype=torch.bfloat16)],
        [torch.randn(1001, dtype=torch.bfloat16), torch.randn(17, dtype=torch.bfloat16)],
    ]
