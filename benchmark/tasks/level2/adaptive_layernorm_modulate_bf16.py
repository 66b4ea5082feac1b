"""Adaptive LayerNorm (diffusion-transformer style): parameter-free LayerNorm, then per-sample scale and shift, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["norm", "layernorm", "broadcast", "modulation"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

B, S, D = 32, 4096, 1152


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor, shift: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        h = F.layer_norm(x, (self.dim,), eps=1e-6)
        return h * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


def _inputs(b, s):
    return [
        torch.randn(b, s, D, dtype=torch.bfloat16) * 2,
        torch.randn(b, D, dtype=torch.bfloat16) * 0.5,
        torch.randn(b, D, dtype=torch.bfloat16) * 0.5,
    ]


def get_inputs():
    return _inputs(B, S)


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [_inputs(1, 1), _inputs(3, 77)]
