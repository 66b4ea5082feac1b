"""Frobenius norm of each matrix in a batch of 2048 fp32 256x256 matrices."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "norm"], "dtype": "float32", "difficulty": 2}

D0, D1, D2 = 2048, 256, 256


def scaled_batch(b: int, m: int, n: int) -> torch.Tensor:
    """Matrices with their own scale, so their norms differ by far more than the tolerance."""
    return torch.randn(b, m, n) * (0.5 + 2 * torch.rand(b, 1, 1))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.linalg.matrix_norm(x, ord="fro")


def get_inputs():
    return [scaled_batch(D0, D1, D2)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[scaled_batch(3, 17, 33)], [scaled_batch(1, 100, 7)]]
