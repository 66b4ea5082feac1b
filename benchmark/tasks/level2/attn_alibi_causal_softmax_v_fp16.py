"""Causal attention with ALiBi linear distance penalties (per-head slopes), softmax, times V, in fp16."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["attention", "gemm", "batched", "mask", "bias", "softmax"],
    "dtype": "float16",
    "difficulty": 3,
}

B, H, S, D = 4, 16, 2048, 64


class Model(nn.Module):
    def __init__(self, heads: int):
        super().__init__()
        slopes = torch.tensor([2.0 ** (-8.0 * (i + 1) / heads) for i in range(heads)], dtype=torch.float16)
        self.register_buffer("slopes", slopes.view(heads, 1, 1))

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        s = q.shape[-2]
        pos = torch.arange(s, device=q.device)
        distance = (pos[None, :] - pos[:, None]).to(q.dtype)  # j - i, <= 0 on and below the diagonal
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + self.slopes * distance
        scores = scores.masked_fill(distance > 0, float("-inf"))
        return torch.softmax(scores, dim=-1) @ v


def _qkv(b, s):
    return [torch.randn(b, H, s, D, dtype=torch.float16) for _ in range(3)]


def get_inputs():
    return _qkv(B, S)


def get_init_inputs():
    return [H]


def get_alt_inputs():
    return [_qkv(1, 23), _qkv(2, 411)]
