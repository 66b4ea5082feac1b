"""Global average pooling of bf16 feature maps to one value per channel."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["pooling", "avgpool", "global", "reduction"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

N, C, H, W = 128, 512, 56, 56


def offset_maps(n: int, c: int, h: int, w: int) -> torch.Tensor:
    """Unit noise around a random offset per (sample, channel), so the pooled values are far apart."""
    return (torch.randn(n, c, h, w) + 2 * torch.randn(n, c, 1, 1)).to(torch.bfloat16)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.adaptive_avg_pool2d(x, 1).flatten(1)


def get_inputs():
    return [offset_maps(N, C, H, W)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[offset_maps(1, 3, 37, 53)], [offset_maps(5, 7, 8, 9)]]
