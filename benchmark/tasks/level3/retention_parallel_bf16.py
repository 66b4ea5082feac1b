"""Multi-scale retention (parallel form) in bf16: causal q.k scores times a per-head exponential decay mask, then group norm and a SiLU gate."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["attention", "retention", "decay_mask", "groupnorm", "causal"], "dtype": "bfloat16", "difficulty": 3}

BATCH, SEQ, DIM, HEADS = 4, 2048, 1024, 8


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        bf16 = torch.bfloat16
        self.qkvg = nn.Linear(dim, 4 * dim, bias=False, dtype=bf16)
        self.norm = nn.GroupNorm(heads, dim, dtype=bf16)
        self.out = nn.Linear(dim, dim, bias=False, dtype=bf16)
        gammas = 1.0 - torch.exp2(-5.0 - torch.arange(heads, dtype=torch.float32))  # per-head decay
        self.register_buffer("log_gamma", torch.log(gammas), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v, g = self.qkvg(x).chunk(4, dim=-1)
        q, k, v = (t.view(b, s, self.heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        pos = torch.arange(s, device=x.device, dtype=torch.float32)
        distance = pos[:, None] - pos[None, :]
        decay = torch.exp(self.log_gamma[:, None, None] * distance.clamp(min=0))
        decay = decay.masked_fill(distance < 0, 0.0).to(x.dtype)  # (heads, s, s)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim)) * decay
        ret = (scores @ v).transpose(1, 2).reshape(b * s, d)
        ret = self.norm(ret).view(b, s, d)
        return self.out(F.silu(g) * ret)


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 3, DIM, dtype=torch.bfloat16)], [torch.randn(2, 100, DIM, dtype=torch.bfloat16)]]
