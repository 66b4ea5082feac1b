"""Causal multi-head self-attention in bf16 with a materialised upper-triangular mask and explicit softmax."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "multi_head", "causal", "softmax"], "dtype": "bfloat16", "difficulty": 2, "atol": 5e-2, "rtol": 5e-2}

BATCH, SEQ, DIM, HEADS = 4, 2048, 1024, 16


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False, dtype=torch.bfloat16)
        self.out = nn.Linear(dim, dim, bias=False, dtype=torch.bfloat16)
        nn.init.normal_(self.qkv.weight, std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads))
        future = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        ctx = torch.softmax(scores.float(), dim=-1).to(x.dtype) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 1, DIM, dtype=torch.bfloat16)], [torch.randn(2, 97, DIM, dtype=torch.bfloat16)]]
