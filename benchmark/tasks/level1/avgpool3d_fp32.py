"""Non-overlapping 2x2x2 average pooling over fp32 volumes."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "avgpool"], "dtype": "float32", "difficulty": 2}

N, C, D, H, W = 4, 64, 32, 96, 96


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool3d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, D, H, W)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, 3, 7, 13, 11)], [torch.randn(2, 5, 4, 4, 9)]]
