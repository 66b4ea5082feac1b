"""Row sums of a softmax over a scaled ReLU (fixture of the Inductor translator tests)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["softmax"], "dtype": "float32", "difficulty": 1}


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.randn(d))

    def forward(self, x):
        return torch.softmax(torch.relu(x) * self.w, dim=-1).sum(-1)


def get_inputs():
    return [torch.randn(64, 300)]


def get_init_inputs():
    return [300]


def get_alt_inputs():
    return [[torch.randn(7, 300)]]
