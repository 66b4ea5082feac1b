"""Batched GEMM of two inputs followed by a softmax over the last dimension, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm", "batched", "softmax"], "dtype": "bfloat16", "difficulty": 2}

B, M, K, N = 64, 1024, 64, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.softmax(torch.bmm(a, b), dim=-1)


def get_inputs():
    return [torch.randn(B, M, K, dtype=torch.bfloat16), torch.randn(B, K, N, dtype=torch.bfloat16) * 0.25]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 7, K, dtype=torch.bfloat16), torch.randn(1, K, 100, dtype=torch.bfloat16) * 0.25],
        [torch.randn(3, 129, 40, dtype=torch.bfloat16), torch.randn(3, 40, 1000, dtype=torch.bfloat16) * 0.3],
    ]
