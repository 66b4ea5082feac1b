"""Per-token cross-entropy of GEMM logits where padding tokens (target -100) get zero loss, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "cross_entropy", "loss", "mask"],
    "dtype": "float32",
    "difficulty": 2,
}

M, K, V = 4096, 1024, 8192


class Model(nn.Module):
    def __init__(self, hidden: int, vocab: int):
        super().__init__()
        self.head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, x: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self.head(x), targets, reduction="none", ignore_index=-100)


def _inputs(m):
    targets = torch.randint(0, V, (m,))
    targets[torch.rand(m) < 0.15] = -100
    return [torch.randn(m, K) * 3, targets]


def get_inputs():
    return _inputs(M)


def get_init_inputs():
    return [K, V]


def get_alt_inputs():
    return [_inputs(7), _inputs(200)]
