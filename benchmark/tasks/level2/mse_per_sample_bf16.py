"""Per-sample mean squared error between predicted and target images (subtract, square, mean over C, H, W), in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["reduction", "loss", "elementwise"], "dtype": "bfloat16", "difficulty": 1}

N, C, H, W = 512, 3, 256, 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return (pred - target).pow(2).mean(dim=(1, 2, 3))


def _inputs(n, h, w):
    target = torch.randn(n, C, h, w, dtype=torch.bfloat16)
    spread = torch.rand(n, 1, 1, 1, dtype=torch.bfloat16) * 2
    return [target + torch.randn(n, C, h, w, dtype=torch.bfloat16) * spread, target]


def get_inputs():
    return _inputs(N, H, W)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 1, 2), _inputs(5, 37, 61)]
