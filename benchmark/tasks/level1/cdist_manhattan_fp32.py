"""Pairwise Manhattan (L1) distances between two fp32 point sets (torch.cdist, p=1): GEMM-shaped work with no tensor-core shortcut."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["distance"], "dtype": "float32", "difficulty": 3}

P, R, DIM = 2048, 2048, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.cdist(a, b, p=1.0)


def get_inputs():
    return [torch.randn(P, DIM), torch.randn(R, DIM)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(37, 3), torch.randn(53, 3)], [torch.randn(100, 129), torch.randn(7, 129)]]
