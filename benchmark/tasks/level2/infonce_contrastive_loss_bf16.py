"""Contrastive (InfoNCE) loss per sample: L2-normalise two embedding batches, cosine logits / temperature, cross-entropy against the diagonal, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "l2norm", "cross_entropy", "loss", "softmax"],
    "dtype": "bfloat16",
    "difficulty": 3,
}

N, D = 8192, 512


class Model(nn.Module):
    def __init__(self, temperature: float):
        super().__init__()
        self.temperature = temperature

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        logits = F.normalize(a, dim=-1) @ F.normalize(b, dim=-1).t() / self.temperature
        targets = torch.arange(a.shape[0], device=a.device)
        return F.cross_entropy(logits, targets, reduction="none")


def _inputs(n):
    a = torch.randn(n, D, dtype=torch.bfloat16)
    return [a, a + torch.randn(n, D, dtype=torch.bfloat16) * 3]


def get_inputs():
    return _inputs(N)


def get_init_inputs():
    return [0.1]


def get_alt_inputs():
    return [_inputs(64), _inputs(301)]
