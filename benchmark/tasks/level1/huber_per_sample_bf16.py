"""Huber loss (delta 1) averaged per sample from bf16 predictions and targets."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "huber"], "dtype": "bfloat16", "difficulty": 2}

N, FEATURES = 32768, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.huber_loss(pred, target, reduction="none", delta=1.0).mean(dim=-1)


def make_pair(n: int, features: int) -> list[torch.Tensor]:
    """Predictions with a random error scale per sample, so per-sample losses differ widely."""
    pred = torch.randn(n, features) * (3 * torch.rand(n, 1))
    return [pred.to(torch.bfloat16), torch.randn(n, features, dtype=torch.bfloat16)]


def get_inputs():
    return make_pair(N, FEATURES)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [make_pair(3, 1001), make_pair(1001, 17)]
