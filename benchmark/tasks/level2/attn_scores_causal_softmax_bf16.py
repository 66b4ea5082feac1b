"""Attention probabilities: Q K^T scaled by 1/sqrt(d), causal mask, softmax, in bf16 (no value product)."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["attention", "gemm", "batched", "mask", "softmax"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

B, H, S, D = 4, 16, 2048, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        s = q.shape[-2]
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        future = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)


def get_inputs():
    return [torch.randn(B, H, S, D, dtype=torch.bfloat16) * 2, torch.randn(B, H, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 2, 37, D, dtype=torch.bfloat16) * 2, torch.randn(1, 2, 37, D, dtype=torch.bfloat16)],
        [
            torch.randn(2, 3, 300, D, dtype=torch.bfloat16) * 2,
            torch.randn(2, 3, 300, D, dtype=torch.bfloat16),
        ],
    ]
