"""2x2 max pooling with stride 2 in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "maxpool"], "dtype": "bfloat16", "difficulty": 2}

N, C, H, W = 128, 128, 112, 112


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 3, 37, 53, dtype=torch.bfloat16)],
        [torch.randn(5, 7, 8, 9, dtype=torch.bfloat16)],
    ]
