"""Causal self-attention restricted to a sliding window of recent keys (banded mask built from positions)."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "causal", "sliding_window", "softmax"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, DIM, HEADS, WINDOW = 4, 2048, 512, 8, 256


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, window: int):
        super().__init__()
        self.heads, self.window = heads, window
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        nn.init.normal_(self.qkv.weight, std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        pos = torch.arange(s, device=x.device)
        offset = pos[:, None] - pos[None, :]
        blocked = (offset < 0) | (offset >= self.window)
        scores = (q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)).masked_fill(blocked, float("-inf"))
        ctx = torch.softmax(scores, dim=-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HEADS, WINDOW]


def get_alt_inputs():
    return [[torch.randn(1, 9, DIM)], [torch.randn(2, 301, DIM)]]
