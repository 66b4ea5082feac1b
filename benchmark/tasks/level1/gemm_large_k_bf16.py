"""bf16 product with a huge inner dimension (K = 131072): needs split-K style parallelism."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "bfloat16", "difficulty": 3}

M, K, N = 1024, 131072, 1024


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
        [torch.randn(33, 20000, dtype=torch.bfloat16), torch.randn(20000, 17, dtype=torch.bfloat16)],
        [torch.randn(128, 4097, dtype=torch.bfloat16), torch.randn(4097, 96, dtype=torch.bfloat16)],
    ]
