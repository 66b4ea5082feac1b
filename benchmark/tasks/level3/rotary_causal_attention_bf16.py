"""Causal multi-head attention with rotary position embeddings (half-rotation form) applied to queries and keys."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["attention", "rotary", "causal"], "dtype": "bfloat16", "difficulty": 3, "atol": 5e-2, "rtol": 5e-2}

BATCH, SEQ, DIM, HEADS, THETA = 4, 2048, 2048, 16, 10000.0


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, theta: float):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False, dtype=torch.bfloat16)
        self.out = nn.Linear(dim, dim, bias=False, dtype=torch.bfloat16)
        nn.init.normal_(self.qkv.weight, std=1.5 / math.sqrt(dim))
        inv_freq = 1.0 / theta ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        angles = torch.outer(torch.arange(s, device=x.device, dtype=torch.float32), self.inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(ctx.transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HEADS, THETA]


def get_alt_inputs():
    return [[torch.randn(1, 6, DIM, dtype=torch.bfloat16)], [torch.randn(2, 133, DIM, dtype=torch.bfloat16)]]
