"""Reflection-pad bf16 feature maps by 4 on every side."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["layout", "pad"], "dtype": "bfloat16", "difficulty": 1}

D0, D1, D2, D3 = 64, 128, 128, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, (4, 4, 4, 4), mode="reflect")


def get_inputs():
    return [torch.randn(D0, D1, D2, D3, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 3, 37, 53, dtype=torch.bfloat16)],
        [torch.randn(5, 7, 8, 9, dtype=torch.bfloat16)],
    ]
