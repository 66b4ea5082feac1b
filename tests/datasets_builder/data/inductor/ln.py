"""LayerNorm of a transposed input, GELU plus a residual, and the normalized maximum (two outputs)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["norm"], "dtype": "float32", "difficulty": 2}

D = 24


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(D)

    def forward(self, x, y):
        h = self.norm(x)
        return torch.nn.functional.gelu(h) + y, h.amax(dim=1)


def get_inputs():
    return [torch.randn(2, D, 6).transpose(1, 2), torch.randn(2, 6, D)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, D, 5).transpose(1, 2), torch.randn(1, 5, D)]]
