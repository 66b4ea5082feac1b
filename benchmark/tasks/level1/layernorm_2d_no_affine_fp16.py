"""Layer normalization over the last two dims (32 x 512) without affine, in fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "layernorm"], "dtype": "float16", "difficulty": 2}

N, A, B = 8192, 32, 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, (A, B), eps=1e-5)


def get_inputs():
    return [torch.randn(N, A, B, dtype=torch.float16) * 2 + 1]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, A, B, dtype=torch.float16) * 2 + 1],
        [torch.randn(2, 5, A, B, dtype=torch.float16) * 2 + 1],
    ]
