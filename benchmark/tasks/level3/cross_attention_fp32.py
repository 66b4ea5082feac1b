"""Cross-attention: queries from a decoder sequence attend over a longer encoder context of another width."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "cross_attention", "softmax"], "dtype": "float32", "difficulty": 2}

BATCH, Q_LEN, KV_LEN, DIM, CTX_DIM, HEADS = 8, 512, 1536, 768, 512, 12


class Model(nn.Module):
    def __init__(self, dim: int, ctx_dim: int, heads: int):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(ctx_dim, 2 * dim)
        self.out = nn.Linear(dim, dim)
        nn.init.normal_(self.q.weight, std=1.5 / math.sqrt(dim))
        nn.init.normal_(self.kv.weight, std=1.5 / math.sqrt(ctx_dim))

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        b, sq, d = x.shape
        sk = context.shape[1]
        q = self.q(x).view(b, sq, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv(context).view(b, sk, 2, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        attn = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1)
        return self.out((attn @ v).transpose(1, 2).reshape(b, sq, d))


def get_inputs():
    return [torch.randn(BATCH, Q_LEN, DIM), torch.randn(BATCH, KV_LEN, CTX_DIM)]


def get_init_inputs():
    return [DIM, CTX_DIM, HEADS]


def get_alt_inputs():
    return [
        [torch.randn(1, 1, DIM), torch.randn(1, 13, CTX_DIM)],
        [torch.randn(3, 40, DIM), torch.randn(3, 177, CTX_DIM)],
    ]
