"""3x3x3 max pooling with stride 2 and padding 1 over bf16 volumes."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "maxpool"], "dtype": "bfloat16", "difficulty": 2}

N, C, D, H, W = 8, 32, 64, 96, 96


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool3d(3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, D, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 3, 7, 13, 11, dtype=torch.bfloat16)],
        [torch.randn(2, 5, 4, 4, 9, dtype=torch.bfloat16)],
    ]
