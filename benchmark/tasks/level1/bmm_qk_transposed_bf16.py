"""Attention-score style batched product Q @ K^T in bf16 (256 heads, 1024 x 1024 scores)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "bfloat16", "difficulty": 3}

BH, S, D = 256, 1024, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b.transpose(-1, -2))


def get_inputs():
    return [torch.randn(BH, S, D, dtype=torch.bfloat16), torch.randn(BH, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 100, 64, dtype=torch.bfloat16), torch.randn(3, 77, 64, dtype=torch.bfloat16)],
        [torch.randn(7, 129, 128, dtype=torch.bfloat16), torch.randn(7, 129, 128, dtype=torch.bfloat16)],
    ]
