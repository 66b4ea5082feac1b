"""Strictly lower-triangular part (diagonal -1) of a batch of fp32 matrices."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["layout", "triangular"], "dtype": "float32", "difficulty": 1}

D0, D1, D2 = 64, 1024, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tril(x, diagonal=-1)


def get_inputs():
    return [torch.randn(D0, D1, D2)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 17, 33)], [torch.randn(1, 100, 7)]]
