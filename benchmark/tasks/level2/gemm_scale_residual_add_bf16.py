"""Bias-free GEMM scaled by a constant and added to a residual stream, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "scale", "residual"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

M, K, N = 8192, 4096, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, scale: float):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features, bias=False, dtype=torch.bfloat16)
        self.scale = scale

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return residual + self.proj(x) * self.scale


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(M, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N, 2.0]


def get_alt_inputs():
    return [
        [torch.randn(7, K, dtype=torch.bfloat16), torch.randn(7, N, dtype=torch.bfloat16)],
        [torch.randn(515, K, dtype=torch.bfloat16), torch.randn(515, N, dtype=torch.bfloat16)],
    ]
