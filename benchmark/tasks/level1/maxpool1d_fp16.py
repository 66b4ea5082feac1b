"""1D max pooling (window 3, stride 2, padding 1) over long fp16 sequences."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["pooling", "maxpool"], "dtype": "float16", "difficulty": 2}

N, C, L = 64, 128, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool1d(3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, L, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 5, 1001, dtype=torch.float16)],
        [torch.randn(1, 2, 4, dtype=torch.float16)],
    ]
