"""SiLU (x * sigmoid(x)) over bf16 activations."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["activation", "elementwise"], "dtype": "bfloat16", "difficulty": 1}

D0, D1, D2 = 16, 2048, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)


def get_inputs():
    return [torch.randn(D0, D1, D2, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 5, 1001, dtype=torch.bfloat16)], [torch.randn(2, 17, 33, dtype=torch.bfloat16)]]
