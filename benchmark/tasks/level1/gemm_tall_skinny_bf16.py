"""Tall-skinny bf16 product that projects 512-wide rows down to 128 columns."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "bfloat16", "difficulty": 3}

M, K, N = 524288, 512, 128


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
        [torch.randn(5003, 200, dtype=torch.bfloat16), torch.randn(200, 40, dtype=torch.bfloat16)],
        [torch.randn(33, 512, dtype=torch.bfloat16), torch.randn(512, 128, dtype=torch.bfloat16)],
    ]
