"""LLaMA-style RMS normalization of bf16 activations: statistics in fp32, then a bf16 scale."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["normalization", "rmsnorm"], "dtype": "bfloat16", "difficulty": 2}

ROWS, FEATURES, EPS = 32768, 4096, 1e-6


class Model(nn.Module):
    def __init__(self, features: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(features, dtype=torch.bfloat16))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def get_inputs():
    return [torch.randn(ROWS, FEATURES, dtype=torch.bfloat16)]


def get_init_inputs():
    return [FEATURES, EPS]


def get_alt_inputs():
    return [
        [torch.randn(3, FEATURES, dtype=torch.bfloat16)],
        [torch.randn(2, 7, FEATURES, dtype=torch.bfloat16)],
    ]
