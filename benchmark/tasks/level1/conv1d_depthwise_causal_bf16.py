"""Causal depthwise 1D convolution (kernel 4, one filter per channel) in bf16, the short convolution of state-space models."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv1d", "depthwise"], "dtype": "bfloat16", "difficulty": 3}

N, CHANNELS, L, KERNEL = 16, 1024, 8192, 4


class Model(nn.Module):
    def __init__(self, channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv1d(
            channels, channels, kernel_size, groups=channels, padding=kernel_size - 1, dtype=torch.bfloat16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)[..., : x.shape[-1]]


def get_inputs():
    return [torch.randn(N, CHANNELS, L, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CHANNELS, KERNEL]


def get_alt_inputs():
    return [
        [torch.randn(3, CHANNELS, 1001, dtype=torch.bfloat16)],
        [torch.randn(1, CHANNELS, 5, dtype=torch.bfloat16)],
    ]
