"""Post-norm (BERT-style) encoder block with a key padding mask: attention, add & LayerNorm, GELU MLP, add & LayerNorm."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["transformer_block", "post_norm", "attention", "padding_mask"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, DIM, HEADS = 16, 384, 768, 12


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm1 = nn.LayerNorm(dim, eps=1e-12)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.norm2 = nn.LayerNorm(dim, eps=1e-12)
        nn.init.normal_(self.qkv.weight, std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape  # mask: (b, s), 1 for real tokens, 0 for padding
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads) + bias
        ctx = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = self.norm1(x + self.proj(ctx))
        return self.norm2(x + self.fc2(F.gelu(self.fc1(x))))


def _inputs(batch: int, seq: int) -> list:
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    mask = (torch.arange(seq)[None, :] < lengths[:, None]).long()
    return [torch.randn(batch, seq, DIM), mask]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [_inputs(1, 2), _inputs(3, 97)]
