"""Bilinear 2x upsampling (align_corners=False) of bf16 feature maps."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["layout", "upsample"], "dtype": "bfloat16", "difficulty": 2}

D0, D1, D2, D3 = 16, 128, 128, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)


def get_inputs():
    return [torch.randn(D0, D1, D2, D3, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 3, 37, 53, dtype=torch.bfloat16)],
        [torch.randn(5, 7, 8, 9, dtype=torch.bfloat16)],
    ]
