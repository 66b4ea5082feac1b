"""Minima over the middle dimension of a 3D fp16 tensor."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "min"], "dtype": "float16", "difficulty": 2}

D0, D1, D2 = 256, 2048, 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amin(x, dim=1)


def get_inputs():
    return [torch.randn(D0, D1, D2, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001, 7, dtype=torch.float16)], [torch.randn(2, 5, 333, dtype=torch.float16)]]
