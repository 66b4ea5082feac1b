"""Outer sum a[:, None] + b[None, :] of two fp16 vectors: the output is all that is written."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise", "broadcast"], "dtype": "float16", "difficulty": 1}

M, N = 16384, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


def get_inputs():
    return [torch.randn(M, 1, dtype=torch.float16), torch.randn(1, N, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1, dtype=torch.float16), torch.randn(1, 1001, dtype=torch.float16)],
        [torch.randn(1001, 1, dtype=torch.float16), torch.randn(1, 7, dtype=torch.float16)],
    ]
