"""Softplus with beta 2 and threshold 10 (both the smooth and the linear branch are hit), in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["activation", "elementwise"], "dtype": "float32", "difficulty": 1}

D0, D1, D2, D3 = 64, 64, 128, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softplus(x, beta=2.0, threshold=10.0)


def get_inputs():
    return [torch.randn(D0, D1, D2, D3) * 4]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, 3, 37, 53) * 4], [torch.randn(5, 7, 8, 9) * 4]]
