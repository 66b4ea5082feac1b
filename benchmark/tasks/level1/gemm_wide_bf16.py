"""Wide bf16 product: few rows against a very wide right-hand matrix (LM-head-like)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "bfloat16", "difficulty": 3}

M, K, N = 512, 4096, 65536


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(K, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(7, 300, dtype=torch.bfloat16), torch.randn(300, 5001, dtype=torch.bfloat16)],
        [torch.randn(129, 64, dtype=torch.bfloat16), torch.randn(64, 2048, dtype=torch.bfloat16)],
    ]
