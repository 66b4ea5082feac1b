"""Linear layer plus residual, clipped with hardtanh, in fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "bias", "residual", "clamp"],
    "dtype": "float16",
    "difficulty": 1,
}

M, D = 8192, 4096


class Model(nn.Module):
    def __init__(self, dim: int, limit: float):
        super().__init__()
        self.linear = nn.Linear(dim, dim, dtype=torch.float16)
        self.limit = limit

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return F.hardtanh(self.linear(x) + residual, -self.limit, self.limit)


def get_inputs():
    return [torch.randn(M, D, dtype=torch.float16), torch.randn(M, D, dtype=torch.float16)]


def get_init_inputs():
    return [D, 1.5]


def get_alt_inputs():
    return [
        [torch.randn(1, D, dtype=torch.float16), torch.randn(1, D, dtype=torch.float16)],
        [torch.randn(123, D, dtype=torch.float16), torch.randn(123, D, dtype=torch.float16)],
    ]
