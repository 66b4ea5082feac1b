"""1D average pooling (window 5, stride 1, same padding) in fp32: a moving average."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "avgpool"], "dtype": "float32", "difficulty": 2}

N, C, L = 64, 128, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool1d(5, stride=1, padding=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, L)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 5, 1001)], [torch.randn(1, 2, 4)]]
