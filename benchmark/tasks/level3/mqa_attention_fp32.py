"""Multi-query attention: many query heads share a single key/value head, explicit softmax, no mask."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "multi_query", "softmax"], "dtype": "float32", "difficulty": 2}

BATCH, SEQ, DIM, HEADS = 8, 1024, 1024, 16


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * self.head_dim)
        self.out = nn.Linear(dim, dim)
        nn.init.normal_(self.q.weight, std=1.5 / math.sqrt(dim))
        nn.init.normal_(self.kv.weight, std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q = self.q(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv(x).unsqueeze(1).chunk(2, dim=-1)  # (b, 1, s, head_dim): broadcast over heads
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        ctx = torch.softmax(scores, dim=-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 3, DIM)], [torch.randn(3, 65, DIM)]]
