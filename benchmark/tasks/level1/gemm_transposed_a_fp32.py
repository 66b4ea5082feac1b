"""fp32 product with a transposed left operand: A is stored K x M and C = A^T @ B."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float32", "difficulty": 3}

M = K = N = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.t() @ b


def get_inputs():
    return [torch.randn(K, M), torch.randn(K, N) * K**-0.5]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(253, 127), torch.randn(253, 61) * 253**-0.5],
        [torch.randn(64, 300), torch.randn(64, 513) * 64**-0.5],
    ]
