"""Batched A @ B^T (B stored row-major, read transposed) followed by log-softmax, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "batched", "transpose", "softmax", "log_softmax"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

B, M, N, K = 32, 2048, 2048, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(a @ b.transpose(1, 2), dim=-1)


def get_inputs():
    return [torch.randn(B, M, K, dtype=torch.bfloat16), torch.randn(B, N, K, dtype=torch.bfloat16) * 0.2]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 5, K, dtype=torch.bfloat16), torch.randn(1, 301, K, dtype=torch.bfloat16) * 0.2],
        [torch.randn(4, 100, 96, dtype=torch.bfloat16), torch.randn(4, 77, 96, dtype=torch.bfloat16) * 0.2],
    ]
