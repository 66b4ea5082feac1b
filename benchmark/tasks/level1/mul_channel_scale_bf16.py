"""Scale each channel of a bf16 NCHW tensor by its own factor (channel broadcast)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise", "broadcast"], "dtype": "bfloat16", "difficulty": 1}

N, C, H, W = 128, 256, 64, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return x * scale


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16), torch.randn(C, 1, 1, dtype=torch.bfloat16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1, 3, 37, 53, dtype=torch.bfloat16), torch.randn(3, 1, 1, dtype=torch.bfloat16)],
        [torch.randn(5, 7, 8, 9, dtype=torch.bfloat16), torch.randn(7, 1, 1, dtype=torch.bfloat16)],
    ]
