"""Pad fp32 images asymmetrically (left 3, right 5, top 2, bottom 4) with the constant 0.5."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["layout", "pad"], "dtype": "float32", "difficulty": 1}

D0, D1, D2, D3 = 16, 64, 224, 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, (3, 5, 2, 4), mode="constant", value=0.5)


def get_inputs():
    return [torch.randn(D0, D1, D2, D3)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, 3, 37, 53)], [torch.randn(5, 7, 8, 9)]]
