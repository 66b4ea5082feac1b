"""fp32 product with a tiny inner dimension (K = 32): bound by writing the large output."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float32", "difficulty": 3}

M, K, N = 16384, 32, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N) * K**-0.5]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1001, 32), torch.randn(32, 777) * 32**-0.5],
        [torch.randn(63, 7), torch.randn(7, 4099) * 7**-0.5],
    ]
