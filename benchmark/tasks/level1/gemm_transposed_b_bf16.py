"""bf16 product against a transposed right operand, C = A @ B^T (the nn.Linear layout)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "bfloat16", "difficulty": 3}

M, N, K = 8192, 8192, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b.t()


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(N, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(127, 255, dtype=torch.bfloat16), torch.randn(61, 255, dtype=torch.bfloat16)],
        [torch.randn(1000, 96, dtype=torch.bfloat16), torch.randn(513, 96, dtype=torch.bfloat16)],
    ]
