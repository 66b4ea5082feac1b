"""Per-token cross-entropy over a 32768-entry vocabulary from bf16 logits (reduction='none')."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "cross_entropy", "softmax"], "dtype": "bfloat16", "difficulty": 2}

TOKENS, VOCAB = 8192, 32768


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(logits, target, reduction="none")


def get_inputs():
    return [torch.randn(TOKENS, VOCAB, dtype=torch.bfloat16) * 3, torch.randint(0, VOCAB, (TOKENS,))]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001, dtype=torch.bfloat16) * 3, torch.randint(0, 1001, (3,))],
        [torch.randn(1001, 17, dtype=torch.bfloat16) * 3, torch.randint(0, 17, (1001,))],
    ]
