"""fp32 matrix-vector product y = A x: a pure bandwidth test over a 768 MB matrix."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float32", "difficulty": 3, "atol": 0.001}

M, K = 12288, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.mv(a, x)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1001, 333), torch.randn(333)], [torch.randn(5, 70000), torch.randn(70000)]]
