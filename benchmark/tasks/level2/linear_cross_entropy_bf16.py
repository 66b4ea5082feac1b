"""Per-token cross-entropy loss of logits produced by a vocabulary GEMM, in bf16 (the logits need not be stored)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "cross_entropy", "loss", "log_softmax"],
    "dtype": "bfloat16",
    "difficulty": 3,
}

M, K, V = 4096, 2048, 32768


class Model(nn.Module):
    def __init__(self, hidden: int, vocab: int):
        super().__init__()
        self.head = nn.Linear(hidden, vocab, bias=False, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self.head(x), targets, reduction="none")


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16) * 3, torch.randint(0, V, (M,))]


def get_init_inputs():
    return [K, V]


def get_alt_inputs():
    return [
        [torch.randn(1, K, dtype=torch.bfloat16) * 3, torch.randint(0, V, (1,))],
        [torch.randn(111, K, dtype=torch.bfloat16) * 3, torch.randint(0, V, (111,))],
    ]
