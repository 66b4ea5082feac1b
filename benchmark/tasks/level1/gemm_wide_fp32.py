"""Wide fp32 product: 256 rows against a 32768-column right-hand matrix."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float32", "difficulty": 3}

M, K, N = 256, 2048, 32768


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
        [torch.randn(5, 300), torch.randn(300, 4001) * 300**-0.5],
        [torch.randn(64, 129), torch.randn(129, 1024) * 129**-0.5],
    ]
