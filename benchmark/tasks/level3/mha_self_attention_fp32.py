"""Multi-head self-attention with an explicit softmax over the full score matrix (no mask), plus projections."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "multi_head", "softmax", "gemm"], "dtype": "float32", "difficulty": 2}

BATCH, SEQ, DIM, HEADS = 8, 1024, 768, 12


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        nn.init.normal_(self.qkv.weight, std=1.5 / math.sqrt(dim))  # sharp, non-uniform attention

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        ctx = torch.softmax(scores, dim=-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 7, DIM)], [torch.randn(2, 129, DIM)]]
