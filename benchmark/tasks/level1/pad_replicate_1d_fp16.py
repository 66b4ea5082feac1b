"""Replicate-pad fp16 sequences (7 on the left, 9 on the right)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["layout", "pad"], "dtype": "float16", "difficulty": 1}

D0, D1, D2 = 64, 256, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, (7, 9), mode="replicate")


def get_inputs():
    return [torch.randn(D0, D1, D2, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 5, 1001, dtype=torch.float16)], [torch.randn(2, 17, 1, dtype=torch.float16)]]
