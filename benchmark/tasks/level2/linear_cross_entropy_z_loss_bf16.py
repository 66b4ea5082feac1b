"""Per-token cross-entropy plus a z-loss penalty (weight * logsumexp^2) on GEMM logits, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "cross_entropy", "loss", "logsumexp"],
    "dtype": "bfloat16",
    "difficulty": 3,
}

M, K, V = 4096, 2048, 32000


class Model(nn.Module):
    def __init__(self, hidden: int, vocab: int, z_weight: float):
        super().__init__()
        self.head = nn.Linear(hidden, vocab, bias=False, dtype=torch.bfloat16)
        self.z_weight = z_weight

    def forward(self, x: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        logits = self.head(x)
        ce = F.cross_entropy(logits, targets, reduction="none")
        return ce + self.z_weight * torch.logsumexp(logits, dim=-1).square()


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16) * 3, torch.randint(0, V, (M,))]


def get_init_inputs():
    return [K, V, 0.01]


def get_alt_inputs():
    return [
        [torch.randn(3, K, dtype=torch.bfloat16) * 3, torch.randint(0, V, (3,))],
        [torch.randn(64, K, dtype=torch.bfloat16) * 3, torch.randint(0, V, (64,))],
    ]
