"""SwiGLU feed-forward (gate and up projections, SiLU gating, down projection) as in Llama-style models."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["mlp", "swiglu", "gemm"], "dtype": "bfloat16", "difficulty": 2}

BATCH, SEQ, DIM, HIDDEN = 4, 2048, 2048, 5632


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False, dtype=torch.bfloat16)
        self.up = nn.Linear(dim, hidden, bias=False, dtype=torch.bfloat16)
        self.down = nn.Linear(hidden, dim, bias=False, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HIDDEN]


def get_alt_inputs():
    return [[torch.randn(1, 3, DIM, dtype=torch.bfloat16)], [torch.randn(2, 77, DIM, dtype=torch.bfloat16)]]
