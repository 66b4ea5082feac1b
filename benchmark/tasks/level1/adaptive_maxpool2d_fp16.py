"""Adaptive max pooling of 45x75 maps to a 6x10 grid (uneven windows) in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "maxpool", "adaptive"], "dtype": "float16", "difficulty": 2}

N, C, H, W = 128, 512, 45, 75


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveMaxPool2d((6, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 3, 37, 53, dtype=torch.float16)],
        [torch.randn(5, 7, 8, 19, dtype=torch.float16)],
    ]
