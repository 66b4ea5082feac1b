"""Global max pooling of fp32 feature maps to one value per channel."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["pooling", "maxpool", "global", "reduction"],
    "dtype": "float32",
    "difficulty": 2,
}

N, C, H, W = 128, 256, 56, 56


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amax(x, dim=(2, 3))


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, 3, 37, 53)], [torch.randn(5, 7, 8, 9)]]
