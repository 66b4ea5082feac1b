"""Batched pairwise Euclidean distances between two fp32 point sets (torch.cdist, p=2)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["distance", "gemm"], "dtype": "float32", "difficulty": 3, "atol": 0.001}

B, P, R, DIM = 8, 2048, 4096, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.cdist(a, b, p=2.0)


def get_inputs():
    return [torch.randn(B, P, DIM), torch.randn(B, R, DIM)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 37, 3), torch.randn(1, 53, 3)],
        [torch.randn(3, 100, 129), torch.randn(3, 7, 129)],
    ]
