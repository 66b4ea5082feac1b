"""Grouped-query causal attention with per-head RMSNorm on queries and keys before the dot product (QK-norm)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["attention", "grouped_query", "qk_norm", "rmsnorm", "causal"], "dtype": "bfloat16", "difficulty": 3}

BATCH, SEQ, DIM, HEADS, KV_HEADS, HEAD_DIM = 4, 2048, 1536, 12, 4, 128


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, head_dim: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.q = nn.Linear(dim, heads * head_dim, bias=False, dtype=torch.bfloat16)
        self.k = nn.Linear(dim, kv_heads * head_dim, bias=False, dtype=torch.bfloat16)
        self.v = nn.Linear(dim, kv_heads * head_dim, bias=False, dtype=torch.bfloat16)
        self.o = nn.Linear(heads * head_dim, dim, bias=False, dtype=torch.bfloat16)
        self.q_norm = nn.RMSNorm(head_dim, eps=1e-6, dtype=torch.bfloat16)
        self.k_norm = nn.RMSNorm(head_dim, eps=1e-6, dtype=torch.bfloat16)
        with torch.no_grad():  # learned norm gains make the logits sharp
            self.q_norm.weight.uniform_(1.0, 2.0)
            self.k_norm.weight.uniform_(1.0, 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q = self.q_norm(self.q(x).view(b, s, self.heads, self.head_dim)).transpose(1, 2)
        k = self.k_norm(self.k(x).view(b, s, self.kv_heads, self.head_dim)).transpose(1, 2)
        v = self.v(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        group = self.heads // self.kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1.0 / math.sqrt(self.head_dim))
        return self.o(ctx.transpose(1, 2).reshape(b, s, -1))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HEADS, KV_HEADS, HEAD_DIM]


def get_alt_inputs():
    return [[torch.randn(1, 2, DIM, dtype=torch.bfloat16)], [torch.randn(3, 71, DIM, dtype=torch.bfloat16)]]
