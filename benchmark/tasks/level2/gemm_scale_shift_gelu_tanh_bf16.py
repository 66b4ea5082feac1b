"""Bias-free GEMM, per-column affine (a folded normalization), then tanh-approximated GELU, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "scale", "bias", "activation"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

M, K, N = 8192, 3072, 3072


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features, bias=False, dtype=torch.bfloat16)
        self.gamma = nn.Parameter(1 + torch.rand(out_features, dtype=torch.bfloat16) * 2)
        self.beta = nn.Parameter(torch.randn(out_features, dtype=torch.bfloat16) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.proj(x) * self.gamma + self.beta, approximate="tanh")


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(1, K, dtype=torch.bfloat16)], [torch.randn(383, K, dtype=torch.bfloat16)]]
