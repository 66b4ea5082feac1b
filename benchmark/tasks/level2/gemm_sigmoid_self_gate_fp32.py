"""Input gated by a sigmoid of its own linear projection (y = x * sigmoid(Wx + b)) in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "gating", "activation"],
    "dtype": "float32",
    "difficulty": 1,
}

M, D = 4096, 2048


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(self.gate(x) * 3)


def get_inputs():
    return [torch.randn(M, D)]


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [[torch.randn(6, D)], [torch.randn(129, D)]]
