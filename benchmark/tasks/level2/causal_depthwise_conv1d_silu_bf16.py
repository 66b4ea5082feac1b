"""Causal depthwise 1D convolution (kernel 4, left padding, as in state-space model blocks) with bias and SiLU, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv1d", "depthwise", "causal", "activation"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

B, C, L, KSIZE = 16, 2048, 2048, 4


class Model(nn.Module):
    def __init__(self, channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv1d(
            channels, channels, kernel_size, groups=channels, padding=kernel_size - 1, dtype=torch.bfloat16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.conv(x)[..., : x.shape[-1]] * 2)


def get_inputs():
    return [torch.randn(B, C, L, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, KSIZE]


def get_alt_inputs():
    return [[torch.randn(1, C, 2, dtype=torch.bfloat16)], [torch.randn(3, C, 257, dtype=torch.bfloat16)]]
