"""1D convolution (kernel 5, 256 -> 512 channels, same padding) in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv1d"], "dtype": "bfloat16", "difficulty": 3}

N, C_IN, C_OUT, L, KERNEL = 32, 256, 512, 8192, 5


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv1d(
            in_channels, out_channels, kernel_size, padding=kernel_size // 2, dtype=torch.bfloat16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, L, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [
        [torch.randn(3, C_IN, 1001, dtype=torch.bfloat16)],
        [torch.randn(1, C_IN, 257, dtype=torch.bfloat16)],
    ]
