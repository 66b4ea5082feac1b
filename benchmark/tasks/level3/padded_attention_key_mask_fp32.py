"""Self-attention over a padded batch: per-sequence lengths mask out padding keys and zero padded query rows."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["attention", "padding_mask", "softmax"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, DIM, HEADS = 16, 768, 512, 8


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        nn.init.normal_(self.qkv.weight, std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        valid = torch.arange(s, device=x.device)[None, :] < lengths[:, None]  # (b, s)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        scores = scores.masked_fill(~valid[:, None, None, :], float("-inf"))
        ctx = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, s, d)
        return self.out(ctx) * valid[..., None]


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM), torch.randint(SEQ // 4, SEQ + 1, (BATCH,))]


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [
        [torch.randn(2, 5, DIM), torch.tensor([5, 2])],
        [torch.randn(3, 150, DIM), torch.randint(1, 151, (3,))],
    ]
