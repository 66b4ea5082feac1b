"""Token embedding lookup from a 50257 x 768 fp32 table (rows of 3 KB)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "embedding"], "dtype": "float32", "difficulty": 2}

VOCAB, DIM, BATCH, SEQ = 50257, 768, 32, 2048


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.embed(tokens)


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, DIM]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (3, 77))], [torch.randint(0, VOCAB, (1001,))]]
