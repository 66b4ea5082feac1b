"""Square fp16 matrix product A @ B at a size that is not a power of two."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float16", "difficulty": 3}

N = 6144


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.mm(a, b)


def get_inputs():
    return [torch.randn(N, N, dtype=torch.float16), torch.randn(N, N, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(131, 259, dtype=torch.float16), torch.randn(259, 71, dtype=torch.float16)],
        [torch.randn(640, 48, dtype=torch.float16), torch.randn(48, 1000, dtype=torch.float16)],
    ]
