"""Split-heads layout change (B, T, H, D) -> (B, H, T, D) of bf16 attention inputs."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["layout", "transpose", "permute"], "dtype": "bfloat16", "difficulty": 2}

D0, D1, D2, D3 = 16, 2048, 32, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.transpose(1, 2).contiguous()


def get_inputs():
    return [torch.randn(D0, D1, D2, D3, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 37, 3, 64, dtype=torch.bfloat16)],
        [torch.randn(2, 5, 7, 33, dtype=torch.bfloat16)],
    ]
