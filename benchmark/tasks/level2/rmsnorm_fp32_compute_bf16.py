"""Decoder-style RMSNorm on bf16 activations: statistics and normalisation in fp32, cast back, then the bf16 weight."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["norm", "rmsnorm", "cast"], "dtype": "bfloat16", "difficulty": 1}

TOKENS, D = 32768, 4096


class Model(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(0.5 + torch.rand(dim, dtype=torch.bfloat16))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def get_inputs():
    return [torch.randn(TOKENS, D, dtype=torch.bfloat16) * 4]


def get_init_inputs():
    return [D, 1e-6]


def get_alt_inputs():
    return [[torch.randn(1, D, dtype=torch.bfloat16) * 4], [torch.randn(2, 50, D, dtype=torch.bfloat16) * 4]]
