"""Per-sample Huber (smooth L1) regression loss, averaged over features, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 2, "tags": ["reduction", "loss", "elementwise"], "dtype": "float32", "difficulty": 1}

N, D = 8192, 8192


class Model(nn.Module):
    def __init__(self, delta: float):
        super().__init__()
        self.delta = delta

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.huber_loss(pred, target, reduction="none", delta=self.delta).mean(dim=-1)


def _inputs(n, d):
    spread = torch.rand(n, 1) * 3
    return [torch.randn(n, d) * spread, torch.randn(n, d)]


def get_inputs():
    return _inputs(N, D)


def get_init_inputs():
    return [1.0]


def get_alt_inputs():
    return [_inputs(1, 7), _inputs(33, 1001)]
