"""Parallel transformer block: one LayerNorm feeds both causal attention and the MLP, summed into the residual."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["transformer_block", "parallel_block", "attention", "mlp", "causal"], "dtype": "bfloat16", "difficulty": 3}

BATCH, SEQ, DIM, HEADS = 4, 2048, 2048, 16


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads, self.dim = heads, dim
        self.norm = nn.LayerNorm(dim, dtype=torch.bfloat16)
        self.in_proj = nn.Linear(dim, 3 * dim + 4 * dim, bias=False, dtype=torch.bfloat16)  # q, k, v and MLP up
        self.attn_out = nn.Linear(dim, dim, bias=False, dtype=torch.bfloat16)
        self.mlp_out = nn.Linear(4 * dim, dim, bias=False, dtype=torch.bfloat16)
        with torch.no_grad():
            self.in_proj.weight[: 2 * dim].normal_(std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        qkv, up = self.in_proj(self.norm(x)).split([3 * d, 4 * d], dim=-1)
        q, k, v = qkv.view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, d)
        return x + self.attn_out(ctx) + self.mlp_out(F.gelu(up, approximate="tanh"))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 1, DIM, dtype=torch.bfloat16)], [torch.randn(2, 123, DIM, dtype=torch.bfloat16)]]
