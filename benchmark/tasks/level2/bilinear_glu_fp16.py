"""Bilinear GLU (no activation): (x W1^T) * (x W2^T), two GEMMs multiplied elementwise, in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm", "glu", "gating"], "dtype": "float16", "difficulty": 2}

M, K, N = 8192, 2048, 5632


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.w1 = nn.Linear(in_features, out_features, bias=False, dtype=torch.float16)
        self.w2 = nn.Linear(in_features, out_features, bias=False, dtype=torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w1(x) * self.w2(x)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16) * 2]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(2, K, dtype=torch.float16) * 2], [torch.randn(99, K, dtype=torch.float16) * 2]]
