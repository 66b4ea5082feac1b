"""3x3 average pooling, stride 1, padding excluded from the count, in fp32 (a box blur)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "avgpool"], "dtype": "float32", "difficulty": 2}

N, C, H, W = 16, 64, 224, 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, 3, 37, 53)], [torch.randn(5, 7, 8, 9)]]
