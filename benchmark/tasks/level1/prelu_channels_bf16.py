"""PReLU with a learned negative slope per channel over bf16 feature maps."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["activation", "elementwise"], "dtype": "bfloat16", "difficulty": 1}

N, C, H, W = 128, 256, 64, 64


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(0.5 * torch.rand(channels, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.prelu(x, self.weight)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [
        [torch.randn(1, C, 37, 53, dtype=torch.bfloat16)],
        [torch.randn(5, C, 8, 9, dtype=torch.bfloat16)],
    ]
