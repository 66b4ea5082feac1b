"""Transformer MLP up-projection with bias and tanh-GELU, in fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "bias", "activation"],
    "dtype": "float16",
    "difficulty": 1,
}

M, K, N = 4096, 4096, 16384


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.up = nn.Linear(in_features, out_features, dtype=torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.up(x), approximate="tanh")


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16) * 2]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(2, K, dtype=torch.float16) * 2], [torch.randn(99, K, dtype=torch.float16) * 2]]
