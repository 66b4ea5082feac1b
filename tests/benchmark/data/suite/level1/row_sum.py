"""Sum over the last dimension of a small fp32 matrix."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction"], "dtype": "float32", "difficulty": 2}


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x.sum(dim=self.dim)


def get_inputs():
    return [torch.randn(32, 100)]


def get_init_inputs():
    return [-1]
