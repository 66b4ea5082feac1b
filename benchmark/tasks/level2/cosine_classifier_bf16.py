"""Cosine-similarity classifier: L2-normalise rows of x and of the weight, GEMM, scale, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 2, "tags": ["gemm", "norm", "l2norm", "scale"], "dtype": "bfloat16", "difficulty": 2}

M, K, N = 8192, 1024, 8192


class Model(nn.Module):
    def __init__(self, in_features: int, num_classes: int, scale: float):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_classes, in_features, dtype=torch.bfloat16))
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(x, dim=-1) @ F.normalize(self.weight, dim=-1).t() * self.scale


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N, 32.0]


def get_alt_inputs():
    return [[torch.randn(3, K, dtype=torch.bfloat16)], [torch.randn(500, K, dtype=torch.bfloat16)]]
