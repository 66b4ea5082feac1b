"""Batched fp32 matrix product over 128 independent 512 x 1024 by 1024 x 512 pairs."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float32", "difficulty": 3}

B, M, K, N = 128, 512, 1024, 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(B, M, K), torch.randn(B, K, N) * K**-0.5]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 100, 77), torch.randn(3, 77, 129) * 77**-0.5],
        [torch.randn(17, 33, 256), torch.randn(17, 256, 5) * 256**-0.5],
    ]
