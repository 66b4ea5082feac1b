"""L2-normalize each row of an fp32 matrix to unit length."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "l2norm"], "dtype": "float32", "difficulty": 2}

ROWS, COLS = 16384, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(x, p=2.0, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001)], [torch.randn(17, 4099)]]
