"""Bias-free GEMM, leaky ReLU, then a per-column bias added after the activation, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "activation", "bias"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

M, K, N = 4096, 8192, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, slope: float):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features, bias=False, dtype=torch.bfloat16)
        self.shift = nn.Parameter(torch.randn(out_features, dtype=torch.bfloat16) * 0.5)
        self.slope = slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(self.proj(x), self.slope) + self.shift


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N, 0.1]


def get_alt_inputs():
    return [[torch.randn(2, K, dtype=torch.bfloat16)], [torch.randn(77, K, dtype=torch.bfloat16)]]
