"""Products over a trailing dimension of size 8 in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "prod"], "dtype": "float32", "difficulty": 2}

D0, D1, D2 = 2048, 4096, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.prod(x, dim=-1)


def get_inputs():
    return [torch.rand(D0, D1, D2) + 0.5]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.rand(3, 1001, 8) + 0.5], [torch.rand(5, 7, 3) + 0.5]]
