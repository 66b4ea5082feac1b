"""3x3 max pooling with stride 2 and padding 1 (the ResNet stem pool) in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "maxpool"], "dtype": "float32", "difficulty": 2}

N, C, H, W = 32, 64, 224, 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, 3, 37, 53)], [torch.randn(5, 7, 8, 9)]]
