"""Mean over the middle dimension of a 3D fp32 tensor."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "mean"], "dtype": "float32", "difficulty": 2}

D0, D1, D2 = 64, 4096, 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.mean(dim=1)


def get_inputs():
    return [torch.randn(D0, D1, D2)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001, 7)], [torch.randn(2, 5, 333)]]
