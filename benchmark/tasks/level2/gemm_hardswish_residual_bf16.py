"""Square linear layer with hardswish, added back onto its own input (a residual epilogue), in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "activation", "residual"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

M, D = 16384, 2048


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.linear = nn.Linear(dim, dim, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + F.hardswish(self.linear(x))


def get_inputs():
    return [torch.randn(M, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [[torch.randn(1, D, dtype=torch.bfloat16)], [torch.randn(300, D, dtype=torch.bfloat16)]]
