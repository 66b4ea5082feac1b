"""SwiGLU feed-forward input half: silu(x W_gate^T) * (x W_up^T), two GEMMs sharing one input, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 2, "tags": ["gemm", "glu", "gating", "activation"], "dtype": "bfloat16", "difficulty": 2}

M, K, N = 8192, 4096, 11008


class Model(nn.Module):
    def __init__(self, hidden: int, intermediate: int):
        super().__init__()
        self.gate = nn.Linear(hidden, intermediate, bias=False, dtype=torch.bfloat16)
        self.up = nn.Linear(hidden, intermediate, bias=False, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.gate(x)) * self.up(x)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(1, K, dtype=torch.bfloat16) * 2], [torch.randn(3, 41, K, dtype=torch.bfloat16) * 2]]
