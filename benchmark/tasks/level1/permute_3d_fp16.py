"""Rotate the axes of a 3D fp16 tensor, (A, B, C) -> (C, A, B), into contiguous memory."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["layout", "transpose", "permute"], "dtype": "float16", "difficulty": 2}

D0, D1, D2 = 256, 512, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.permute(2, 0, 1).contiguous()


def get_inputs():
    return [torch.randn(D0, D1, D2, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 5, 1001, dtype=torch.float16)], [torch.randn(2, 17, 33, dtype=torch.float16)]]
