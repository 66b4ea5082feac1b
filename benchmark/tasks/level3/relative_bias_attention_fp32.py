"""Bidirectional attention with a learned per-head relative-position bias, gathered by clipped query-key distance."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "relative_position", "gather", "softmax"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, DIM, HEADS, MAX_DISTANCE = 8, 1024, 512, 8, 128


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, max_distance: int):
        super().__init__()
        self.heads, self.max_distance = heads, max_distance
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.bias_table = nn.Parameter(torch.randn(2 * max_distance + 1, heads) * 2.0)
        nn.init.normal_(self.qkv.weight, std=1.0 / math.sqrt(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        pos = torch.arange(s, device=x.device)
        rel = (pos[None, :] - pos[:, None]).clamp(-self.max_distance, self.max_distance) + self.max_distance
        bias = self.bias_table[rel].permute(2, 0, 1)  # (heads, s, s)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads) + bias
        ctx = torch.softmax(scores, dim=-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HEADS, MAX_DISTANCE]


def get_alt_inputs():
    return [[torch.randn(1, 5, DIM)], [torch.randn(2, 300, DIM)]]
