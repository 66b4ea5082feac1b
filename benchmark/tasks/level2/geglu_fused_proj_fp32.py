"""GEGLU: one projection to twice the width, split in halves, gelu(first) * second, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "glu", "gating", "activation", "bias"],
    "dtype": "float32",
    "difficulty": 2,
}

M, K, N = 4096, 1024, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.proj = nn.Linear(in_features, 2 * out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = self.proj(x).chunk(2, dim=-1)
        return F.gelu(a) * b


def get_inputs():
    return [torch.randn(M, K) * 2]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(1, K) * 2], [torch.randn(5, 19, K) * 2]]
