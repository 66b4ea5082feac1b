"""Dilated 3x3 max pooling (dilation 2, stride 2, ceil mode) in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "maxpool", "dilated"], "dtype": "float16", "difficulty": 2}

N, C, H, W = 64, 96, 147, 147


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, stride=2, dilation=2, ceil_mode=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 3, 37, 53, dtype=torch.float16)],
        [torch.randn(5, 7, 8, 9, dtype=torch.float16)],
    ]
