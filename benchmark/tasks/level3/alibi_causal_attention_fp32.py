"""Causal attention with ALiBi: per-head linear distance penalties added to the scores instead of position embeddings."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "alibi", "causal", "softmax"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, DIM, HEADS = 4, 1536, 768, 12


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        nn.init.normal_(self.qkv.weight, std=1.5 / math.sqrt(dim))
        slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / heads) for h in range(heads)])
        self.register_buffer("slopes", slopes.view(heads, 1, 1), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        pos = torch.arange(s, device=x.device, dtype=x.dtype)
        distance = pos[None, :] - pos[:, None]  # key minus query: <= 0 for visible keys
        bias = self.slopes * distance
        bias = bias.masked_fill(distance > 0, float("-inf"))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads) + bias
        ctx = torch.softmax(scores, dim=-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 4, DIM)], [torch.randn(2, 111, DIM)]]
