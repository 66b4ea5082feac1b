"""Prefix sum over the middle dim of a bf16 tensor, accumulated in fp32 and rounded once."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["scan", "cumsum"], "dtype": "bfloat16", "difficulty": 3}

D0, D1, D2 = 64, 4096, 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=1, dtype=torch.float32).to(torch.bfloat16)


def get_inputs():
    return [torch.randn(D0, D1, D2, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001, 7, dtype=torch.bfloat16)], [torch.randn(2, 5, 333, dtype=torch.bfloat16)]]
