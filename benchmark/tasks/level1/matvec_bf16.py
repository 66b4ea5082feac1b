"""bf16 matrix-vector product y = A x over a 768 MB matrix (decode-time linear layer)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "bfloat16", "difficulty": 3}

M, K = 24576, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return a @ x


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(K, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1001, 333, dtype=torch.bfloat16), torch.randn(333, dtype=torch.bfloat16)],
        [torch.randn(5, 70000, dtype=torch.bfloat16), torch.randn(70000, dtype=torch.bfloat16)],
    ]
