"""Attention with a learned per-head additive position bias on the scores, softmax, times V, in fp32."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["attention", "gemm", "batched", "bias", "softmax"],
    "dtype": "float32",
    "difficulty": 2,
}

B, H, S, D = 8, 8, 1024, 64


class Model(nn.Module):
    def __init__(self, heads: int, max_len: int):
        super().__init__()
        self.pos_bias = nn.Parameter(torch.randn(heads, max_len, max_len))

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        s = q.shape[-2]
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + self.pos_bias[:, :s, :s]
        return torch.softmax(scores, dim=-1) @ v


def _qkv(b, s):
    return [torch.randn(b, H, s, D) * 1.5, torch.randn(b, H, s, D), torch.randn(b, H, s, D)]


def get_inputs():
    return _qkv(B, S)


def get_init_inputs():
    return [H, S]


def get_alt_inputs():
    return [_qkv(1, 31), _qkv(2, 500)]
