"""Encoder-decoder decoder block: causal self-attention, cross-attention over encoder states, ReLU MLP (pre-norm)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["transformer_block", "cross_attention", "causal", "pre_norm"], "dtype": "float32", "difficulty": 3}

BATCH, TGT_LEN, SRC_LEN, DIM, HEADS = 8, 256, 512, 512, 8


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm_self, self.norm_cross, self.norm_mlp = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.self_qkv = nn.Linear(dim, 3 * dim)
        self.self_out = nn.Linear(dim, dim)
        self.cross_q = nn.Linear(dim, dim)
        self.cross_kv = nn.Linear(dim, 2 * dim)
        self.cross_out = nn.Linear(dim, dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        for w in (self.self_qkv.weight, self.cross_q.weight, self.cross_kv.weight):
            nn.init.normal_(w, std=1.5 / math.sqrt(dim))

    def _heads(self, t: torch.Tensor) -> torch.Tensor:
        b, s, d = t.shape
        return t.view(b, s, self.heads, d // self.heads).transpose(1, 2)

    def forward(self, x: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = (self._heads(t) for t in self.self_qkv(self.norm_self(x)).chunk(3, dim=-1))
        ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.self_out(ctx.transpose(1, 2).reshape(b, s, d))
        q = self._heads(self.cross_q(self.norm_cross(x)))
        k, v = (self._heads(t) for t in self.cross_kv(memory).chunk(2, dim=-1))
        ctx = F.scaled_dot_product_attention(q, k, v)
        x = x + self.cross_out(ctx.transpose(1, 2).reshape(b, s, d))
        return x + self.fc2(F.relu(self.fc1(self.norm_mlp(x))))


def get_inputs():
    return [torch.randn(BATCH, TGT_LEN, DIM), torch.randn(BATCH, SRC_LEN, DIM)]


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [
        [torch.randn(1, 1, DIM), torch.randn(1, 7, DIM)],
        [torch.randn(2, 45, DIM), torch.randn(2, 133, DIM)],
    ]
