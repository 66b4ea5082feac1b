"""Residual update with LayerScale: residual + gamma * (branch + bias), per-channel gamma and bias, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["elementwise", "residual", "scale", "bias", "broadcast"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

TOKENS, D = 32768, 4096


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.gamma = nn.Parameter(0.05 + torch.rand(dim, dtype=torch.bfloat16) * 0.25)
        self.bias = nn.Parameter(torch.randn(dim, dtype=torch.bfloat16) * 0.5)

    def forward(self, residual: torch.Tensor, branch: torch.Tensor) -> torch.Tensor:
        return residual + self.gamma * (branch + self.bias)


def _inputs(*shape):
    return [torch.randn(*shape, dtype=torch.bfloat16), torch.randn(*shape, dtype=torch.bfloat16)]


def get_inputs():
    return _inputs(TOKENS, D)


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [_inputs(1, D), _inputs(2, 33, D)]
