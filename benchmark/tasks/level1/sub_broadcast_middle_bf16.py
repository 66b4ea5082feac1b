"""Subtract a per-batch mean row (B, 1, D) from a bf16 (B, T, D) tensor."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise", "broadcast"], "dtype": "bfloat16", "difficulty": 1}

B, T, D = 32, 2048, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, center: torch.Tensor) -> torch.Tensor:
        return x - center


def get_inputs():
    return [torch.randn(B, T, D, dtype=torch.bfloat16), torch.randn(B, 1, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 5, 1001, dtype=torch.bfloat16), torch.randn(3, 1, 1001, dtype=torch.bfloat16)],
        [torch.randn(2, 17, 33, dtype=torch.bfloat16), torch.randn(2, 1, 33, dtype=torch.bfloat16)],
    ]
