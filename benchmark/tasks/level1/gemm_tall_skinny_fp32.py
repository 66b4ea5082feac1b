"""Tall-skinny fp32 product: many rows, small inner and output dims (memory-heavy)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float32", "difficulty": 3}

M, K, N = 262144, 256, 256


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
        [torch.randn(4099, 96), torch.randn(96, 33) * 96**-0.5],
        [torch.randn(17, 256), torch.randn(256, 256) * 256**-0.5],
    ]
