"""L2-normalize the channel vector at every pixel of a bf16 NCHW tensor."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "l2norm"], "dtype": "bfloat16", "difficulty": 2}

N, C, H, W = 128, 256, 64, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(x, p=2.0, dim=1)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 3, 37, 53, dtype=torch.bfloat16)],
        [torch.randn(5, 7, 8, 9, dtype=torch.bfloat16)],
    ]
