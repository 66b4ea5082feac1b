"""Swin patch merging in bf16: gather each 2x2 neighbourhood into 4C channels, LayerNorm, then a linear reduction to 2C."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["vision", "patch_merging", "layernorm", "gather"], "dtype": "bfloat16", "difficulty": 2}

BATCH, SIZE, DIM = 128, 56, 128


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(4 * dim, dtype=torch.bfloat16)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x0 = x[:, 0::2, 0::2]  # x: (batch, h, w, c), h and w even
        x1 = x[:, 1::2, 0::2]
        x2 = x[:, 0::2, 1::2]
        x3 = x[:, 1::2, 1::2]
        return self.reduction(self.norm(torch.cat((x0, x1, x2, x3), dim=-1)))


def get_inputs():
    return [torch.randn(BATCH, SIZE, SIZE, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM]


def get_alt_inputs():
    return [[torch.randn(1, 2, 2, DIM, dtype=torch.bfloat16)], [torch.randn(3, 14, 10, DIM, dtype=torch.bfloat16)]]
