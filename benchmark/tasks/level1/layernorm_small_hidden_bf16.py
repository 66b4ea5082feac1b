"""Layer normalization of a million short (128-wide) bf16 rows: one warp per row."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "layernorm"], "dtype": "bfloat16", "difficulty": 2}

ROWS, FEATURES = 1048576, 128


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(features, dtype=torch.bfloat16))
        self.bias = nn.Parameter(0.1 * torch.randn(features, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, x.shape[-1:], self.weight, self.bias, eps=1e-5)


def get_inputs():
    return [torch.randn(ROWS, FEATURES, dtype=torch.bfloat16) * 2 + 1]


def get_init_inputs():
    return [FEATURES]


def get_alt_inputs():
    return [
        [torch.randn(3, FEATURES, dtype=torch.bfloat16) * 2 + 1],
        [torch.randn(1001, FEATURES, dtype=torch.bfloat16) * 2 + 1],
    ]
