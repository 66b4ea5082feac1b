"""bf16 outer-product-like GEMM with K = 64: output writes dominate."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "bfloat16", "difficulty": 3}

M, K, N = 16384, 64, 16384


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
        [torch.randn(1001, 64, dtype=torch.bfloat16), torch.randn(64, 777, dtype=torch.bfloat16)],
        [torch.randn(65, 13, dtype=torch.bfloat16), torch.randn(13, 4099, dtype=torch.bfloat16)],
    ]
