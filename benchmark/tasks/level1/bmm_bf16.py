"""Batched bf16 matrix product of 32 square 2048 x 2048 pairs."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "bfloat16", "difficulty": 3}

B, N = 32, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(B, N, N, dtype=torch.bfloat16), torch.randn(B, N, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 100, 77, dtype=torch.bfloat16), torch.randn(3, 77, 129, dtype=torch.bfloat16)],
        [torch.randn(5, 257, 64, dtype=torch.bfloat16), torch.randn(5, 64, 300, dtype=torch.bfloat16)],
    ]
