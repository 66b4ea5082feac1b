"""Row maxima of a softmax over scaled rows, for inputs of rank 2 and 1 (fixture of the dispatch tests)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["softmax"], "dtype": "float32", "difficulty": 1}


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.randn(d))

    def forward(self, x):
        return torch.softmax(x * self.w, dim=-1).amax(-1)


def get_inputs():
    return [torch.randn(32, 40)]


def get_init_inputs():
    return [40]


def get_alt_inputs():
    return [[torch.randn(40)], [torch.randn(5, 40)]]
