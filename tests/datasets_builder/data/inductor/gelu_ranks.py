"""The tanh-GELU op by op, for inputs of rank 2 and 1 and a single row (fixture of the dispatch tests)."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["elementwise"], "dtype": "float32", "difficulty": 1}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))
        return 0.5 * x * (1.0 + torch.tanh(inner))


def get_inputs():
    return [torch.randn(64, 48)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(11)], [torch.randn(3, 100)], [torch.randn(1, 5)]]
