"""Per-channel sums over batch and length of an (N, C, L) fp32 tensor, like batch-norm statistics."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "sum"], "dtype": "float32", "difficulty": 2, "atol": 0.01}

D0, D1, D2 = 64, 512, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=(0, 2))


def get_inputs():
    return [torch.randn(D0, D1, D2)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 7, 1001)], [torch.randn(17, 5, 33)]]
