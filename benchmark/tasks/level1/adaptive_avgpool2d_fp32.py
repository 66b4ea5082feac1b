"""Adaptive average pooling of 50x50 maps to 7x7 (uneven, overlapping windows) in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "avgpool", "adaptive"], "dtype": "float32", "difficulty": 2}

N, C, H, W = 128, 256, 50, 50


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d((7, 7))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, 3, 37, 53)], [torch.randn(5, 7, 8, 9)]]
