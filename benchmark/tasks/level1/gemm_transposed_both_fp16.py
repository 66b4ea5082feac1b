"""fp16 product with both operands transposed, C = A^T @ B^T."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float16", "difficulty": 3}

M = N = K = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.t() @ b.t()


def get_inputs():
    return [torch.randn(K, M, dtype=torch.float16), torch.randn(N, K, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(255, 127, dtype=torch.float16), torch.randn(61, 255, dtype=torch.float16)],
        [torch.randn(96, 1000, dtype=torch.float16), torch.randn(513, 96, dtype=torch.float16)],
    ]
