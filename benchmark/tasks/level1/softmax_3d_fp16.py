"""Softmax over the last dimension of a 3D fp16 tensor of attention-like scores."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["softmax", "reduction"], "dtype": "float16", "difficulty": 2, "atol": 1e-05}

D0, D1, D2 = 64, 1024, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(D0, D1, D2, dtype=torch.float16) * 3]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 5, 1001, dtype=torch.float16) * 3],
        [torch.randn(2, 17, 33, dtype=torch.float16) * 3],
    ]
