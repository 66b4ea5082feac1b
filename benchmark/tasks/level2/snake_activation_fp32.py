"""Snake activation with per-channel frequency, x + sin^2(a x) / a, on [N, C, L] audio features, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["elementwise", "activation", "broadcast"],
    "dtype": "float32",
    "difficulty": 1,
}

N, C, L = 16, 512, 8192


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.alpha = nn.Parameter(0.5 + torch.rand(1, channels, 1) * 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.sin(self.alpha * x).pow(2) / (self.alpha + 1e-9)


def get_inputs():
    return [torch.randn(N, C, L) * 2]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(1, C, 1) * 2], [torch.randn(2, C, 999) * 2]]
