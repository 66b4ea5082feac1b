"""Square fp32 matrix product A @ B with full fp32 accumulation (TF32 is off)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float32", "difficulty": 3}

N = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N) * N**-0.5]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(127, 253), torch.randn(253, 61) * 253**-0.5],
        [torch.randn(300, 64), torch.randn(64, 513) * 64**-0.5],
    ]
