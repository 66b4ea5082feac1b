"""Mean squared error per sample (reduction='none', then a mean over features) in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "mse"], "dtype": "float32", "difficulty": 2}

N, FEATURES = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(pred, target, reduction="none").mean(dim=1)


def make_pair(n: int, features: int) -> list[torch.Tensor]:
    """Predictions with a random error scale per sample, so per-sample losses differ widely."""
    return [torch.randn(n, features) * (2 * torch.rand(n, 1)), torch.randn(n, features)]


def get_inputs():
    return make_pair(N, FEATURES)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [make_pair(3, 1001), make_pair(1001, 17)]
