"""GeGLU feed-forward with a fused gate/up projection split in two halves, tanh-GELU gate and down projection."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["mlp", "geglu", "gemm"], "dtype": "float32", "difficulty": 2}

BATCH, SEQ, DIM, HIDDEN = 8, 512, 768, 2048


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.proj_in = nn.Linear(dim, 2 * hidden)
        self.proj_out = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        value, gate = self.proj_in(x).chunk(2, dim=-1)
        return self.proj_out(value * F.gelu(gate, approximate="tanh"))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HIDDEN]


def get_alt_inputs():
    return [[torch.randn(1, 5, DIM)], [torch.randn(3, 91, DIM)]]
