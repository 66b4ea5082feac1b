"""Linear layer, softplus, and an upper clamp (a bounded positive output head) in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "activation", "clamp"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

M, K, N = 8192, 2048, 8192


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, ceiling: float):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=torch.bfloat16)
        self.ceiling = ceiling

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(F.softplus(self.linear(x) * 2), max=self.ceiling)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N, 1.5]


def get_alt_inputs():
    return [[torch.randn(4, K, dtype=torch.bfloat16)], [torch.randn(257, K, dtype=torch.bfloat16)]]
