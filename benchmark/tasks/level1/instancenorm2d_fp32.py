"""Instance normalization (per sample and channel, no affine) of fp32 images."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "instancenorm"], "dtype": "float32", "difficulty": 2}

N, C, H, W = 32, 128, 128, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.instance_norm(x, eps=1e-5)


def get_inputs():
    return [torch.randn(N, C, H, W) * 2 + 1]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, C, 37, 53) * 2 + 1], [torch.randn(5, 3, 8, 9) * 2 + 1]]
