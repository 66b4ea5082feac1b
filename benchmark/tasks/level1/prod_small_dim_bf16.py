"""Products over a size-4 middle dimension (a strided reduction) in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "prod"], "dtype": "bfloat16", "difficulty": 2}

D0, D1, D2 = 4096, 4, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.prod(x, dim=1)


def get_inputs():
    return [torch.rand(D0, D1, D2, dtype=torch.bfloat16) + 0.5]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.rand(3, 4, 1001, dtype=torch.bfloat16) + 0.5],
        [torch.rand(5, 3, 7, dtype=torch.bfloat16) + 0.5],
    ]
