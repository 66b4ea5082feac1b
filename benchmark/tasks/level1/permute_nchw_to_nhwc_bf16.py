"""Convert a bf16 NCHW tensor to channels-last NHWC memory order."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["layout", "transpose", "permute"], "dtype": "bfloat16", "difficulty": 2}

D0, D1, D2, D3 = 128, 256, 56, 56


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.permute(0, 2, 3, 1).contiguous()


def get_inputs():
    return [torch.randn(D0, D1, D2, D3, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 3, 37, 53, dtype=torch.bfloat16)],
        [torch.randn(5, 7, 8, 9, dtype=torch.bfloat16)],
    ]
