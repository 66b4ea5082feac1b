"""ReGLU: one projection to twice the width, relu(first half) * second half, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm", "glu", "gating", "activation"], "dtype": "bfloat16", "difficulty": 2}

M, K, N = 16384, 2048, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.proj = nn.Linear(in_features, 2 * out_features, bias=False, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = self.proj(x).chunk(2, dim=-1)
        return torch.relu(a) * b


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(1, K, dtype=torch.bfloat16) * 2], [torch.randn(257, K, dtype=torch.bfloat16) * 2]]
