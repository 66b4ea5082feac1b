"""Token embedding lookup from a 128000 x 1024 bf16 table."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "embedding"], "dtype": "bfloat16", "difficulty": 2}

VOCAB, DIM, BATCH, SEQ = 128000, 1024, 32, 4096


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, dtype=torch.bfloat16)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.embed(tokens)


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, DIM]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (3, 77))], [torch.randint(0, VOCAB, (1001,))]]
