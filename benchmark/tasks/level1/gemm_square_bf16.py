"""Square bf16 matrix product A @ B, the tensor-core workhorse."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "bfloat16", "difficulty": 3}

N = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


def get_inputs():
    return [torch.randn(N, N, dtype=torch.bfloat16), torch.randn(N, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(129, 255, dtype=torch.bfloat16), torch.randn(255, 67, dtype=torch.bfloat16)],
        [torch.randn(1000, 96, dtype=torch.bfloat16), torch.randn(96, 513, dtype=torch.bfloat16)],
    ]
