"""Causal attention with tanh soft-capping of the logits before softmax (as in some recent LLMs)."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "causal", "softcap", "softmax"], "dtype": "float32", "difficulty": 2}

BATCH, SEQ, DIM, HEADS, CAP = 4, 1536, 1024, 8, 5.0


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, cap: float):
        super().__init__()
        self.heads, self.cap = heads, cap
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        nn.init.normal_(self.qkv.weight, std=1.8 / math.sqrt(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        logits = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        logits = self.cap * torch.tanh(logits / self.cap)
        future = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        ctx = torch.softmax(logits.masked_fill(future, float("-inf")), dim=-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HEADS, CAP]


def get_alt_inputs():
    return [[torch.randn(1, 3, DIM)], [torch.randn(2, 95, DIM)]]
