"""Token embedding lookup, scaled by sqrt(d_model), plus a learned positional embedding, in bf16."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["embedding", "gather", "scale", "broadcast"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

B, S, D, VOCAB, MAX_LEN = 32, 2048, 1024, 32000, 4096


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int, max_len: int):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim, dtype=torch.bfloat16)
        self.positions = nn.Parameter(torch.randn(max_len, dim, dtype=torch.bfloat16) * 0.5)
        with torch.no_grad():
            self.tokens.weight.mul_(1.0 / math.sqrt(dim))
        self.scale = math.sqrt(dim)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.tokens(ids) * self.scale + self.positions[: ids.shape[1]]


def get_inputs():
    return [torch.randint(0, VOCAB, (B, S))]


def get_init_inputs():
    return [VOCAB, D, MAX_LEN]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 1))], [torch.randint(0, VOCAB, (3, 333))]]
