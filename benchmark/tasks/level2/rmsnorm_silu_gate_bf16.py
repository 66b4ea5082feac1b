"""Gated RMSNorm: RMSNorm(x) * weight * silu(gate), as in gated state-space and SwiGLU-style blocks, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["norm", "rmsnorm", "activation", "gating"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

ROWS, D = 16384, 4096


class Model(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(0.5 + torch.rand(dim, dtype=torch.bfloat16))
        self.eps = eps

    def forward(self, x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
        normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return normed * self.weight * F.silu(gate)


def _inputs(*shape):
    return [torch.randn(*shape, dtype=torch.bfloat16), torch.randn(*shape, dtype=torch.bfloat16) * 2]


def get_inputs():
    return _inputs(ROWS, D)


def get_init_inputs():
    return [D, 1e-5]


def get_alt_inputs():
    return [_inputs(1, D), _inputs(3, 67, D)]
