"""torch.nn.MultiheadAttention self-attention with a boolean causal mask, as written in many user models."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "multi_head", "causal"], "dtype": "float32", "difficulty": 2}

BATCH, SEQ, DIM, HEADS = 8, 1024, 1024, 16


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, dropout=0.0, batch_first=True)
        nn.init.normal_(self.attn.in_proj_weight, std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = x.shape[1]
        future = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        out, _ = self.attn(x, x, x, attn_mask=future, need_weights=False)
        return out


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 2, DIM)], [torch.randn(3, 77, DIM)]]
