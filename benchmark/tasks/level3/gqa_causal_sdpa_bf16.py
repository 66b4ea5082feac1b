"""Grouped-query causal attention (16 query heads sharing 4 key/value heads) through scaled_dot_product_attention."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["attention", "grouped_query", "causal"], "dtype": "bfloat16", "difficulty": 2}

BATCH, SEQ, DIM, HEADS, KV_HEADS = 4, 2048, 2048, 16, 4


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.q = nn.Linear(dim, dim, bias=False, dtype=torch.bfloat16)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.head_dim, bias=False, dtype=torch.bfloat16)
        self.out = nn.Linear(dim, dim, bias=False, dtype=torch.bfloat16)
        nn.init.normal_(self.q.weight, std=1.5 / math.sqrt(dim))
        nn.init.normal_(self.kv.weight, std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv(x).view(b, s, 2, self.kv_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        group = self.heads // self.kv_heads
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(ctx.transpose(1, 2).reshape(b, s, -1))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HEADS, KV_HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 5, DIM, dtype=torch.bfloat16)], [torch.randn(2, 200, DIM, dtype=torch.bfloat16)]]
