"""Llama-style decoder block: RMSNorm, grouped-query causal attention with rotary embeddings, RMSNorm, SwiGLU MLP."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["transformer_block", "pre_norm", "rmsnorm", "rotary", "grouped_query", "swiglu"], "dtype": "bfloat16", "difficulty": 3}

BATCH, SEQ, DIM, HEADS, KV_HEADS, HIDDEN = 2, 2048, 2048, 16, 4, 5632


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, hidden: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        bf16 = torch.bfloat16
        self.attn_norm = nn.RMSNorm(dim, eps=1e-5, dtype=bf16)
        self.q = nn.Linear(dim, dim, bias=False, dtype=bf16)
        self.k = nn.Linear(dim, kv_heads * self.head_dim, bias=False, dtype=bf16)
        self.v = nn.Linear(dim, kv_heads * self.head_dim, bias=False, dtype=bf16)
        self.o = nn.Linear(dim, dim, bias=False, dtype=bf16)
        self.mlp_norm = nn.RMSNorm(dim, eps=1e-5, dtype=bf16)
        self.gate = nn.Linear(dim, hidden, bias=False, dtype=bf16)
        self.up = nn.Linear(dim, hidden, bias=False, dtype=bf16)
        self.down = nn.Linear(hidden, dim, bias=False, dtype=bf16)
        nn.init.normal_(self.q.weight, std=1.5 / math.sqrt(dim))
        nn.init.normal_(self.k.weight, std=1.5 / math.sqrt(dim))
        inv_freq = 1.0 / 500000.0 ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        h = self.attn_norm(x)
        q = self.q(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        angles = torch.outer(torch.arange(s, device=x.device, dtype=torch.float32), self.inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        group = self.heads // self.kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(ctx.transpose(1, 2).reshape(b, s, -1))
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HEADS, KV_HEADS, HIDDEN]


def get_alt_inputs():
    return [[torch.randn(1, 3, DIM, dtype=torch.bfloat16)], [torch.randn(2, 90, DIM, dtype=torch.bfloat16)]]
