"""One decoding step of grouped-query attention: project the new token, append it to a long KV cache, attend.

Memory-bound: the whole cache is read once per step, which is what decode kernels optimise.
"""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "grouped_query", "decode", "kv_cache"], "dtype": "bfloat16", "difficulty": 3}

BATCH, CACHE_LEN, DIM, HEADS, KV_HEADS = 32, 4096, 4096, 32, 8


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.q = nn.Linear(dim, dim, bias=False, dtype=torch.bfloat16)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.head_dim, bias=False, dtype=torch.bfloat16)
        self.o = nn.Linear(dim, dim, bias=False, dtype=torch.bfloat16)
        nn.init.normal_(self.q.weight, std=1.5 / math.sqrt(dim))
        nn.init.normal_(self.kv.weight, std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor) -> torch.Tensor:
        b = x.shape[0]  # x: (b, 1, dim); caches: (b, kv_heads, cache_len, head_dim)
        q = self.q(x).view(b, self.kv_heads, self.heads // self.kv_heads, self.head_dim)
        k_new, v_new = self.kv(x).view(b, 2, self.kv_heads, 1, self.head_dim).unbind(1)
        k = torch.cat((k_cache, k_new), dim=2)
        v = torch.cat((v_cache, v_new), dim=2)
        scores = (q @ k.transpose(-2, -1)).float() / math.sqrt(self.head_dim)  # (b, kv_heads, group, len+1)
        ctx = torch.softmax(scores, dim=-1).to(x.dtype) @ v
        return self.o(ctx.reshape(b, 1, -1))


def _inputs(batch: int, cache_len: int) -> list:
    head_dim = DIM // HEADS
    return [
        torch.randn(batch, 1, DIM, dtype=torch.bfloat16),
        torch.randn(batch, KV_HEADS, cache_len, head_dim, dtype=torch.bfloat16) * 1.5,
        torch.randn(batch, KV_HEADS, cache_len, head_dim, dtype=torch.bfloat16),
    ]


def get_inputs():
    return _inputs(BATCH, CACHE_LEN)


def get_init_inputs():
    return [DIM, HEADS, KV_HEADS]


def get_alt_inputs():
    return [_inputs(1, 1), _inputs(3, 517)]
