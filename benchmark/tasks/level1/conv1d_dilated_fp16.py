"""Dilated 1D convolution (kernel 3, dilation 4) in fp16, as in WaveNet-style stacks."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv1d", "dilated"], "dtype": "float16", "difficulty": 3}

N, C_IN, C_OUT, L, KERNEL, DILATION = 64, 128, 128, 16384, 3, 4


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, dilation: int):
        super().__init__()
        self.conv = nn.Conv1d(
            in_channels, out_channels, kernel_size, dilation=dilation, padding=dilation, dtype=torch.float16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, L, dtype=torch.float16)]


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL, DILATION]


def get_alt_inputs():
    return [
        [torch.randn(3, C_IN, 1001, dtype=torch.float16)],
        [torch.randn(2, C_IN, 9, dtype=torch.float16)],
    ]
