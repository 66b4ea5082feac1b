"""3D convolution (3x3x3, 64 channels, same padding) over bf16 video-like volumes."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv3d"], "dtype": "bfloat16", "difficulty": 3}

N, C_IN, C_OUT, D, H, W, KERNEL = 8, 64, 64, 32, 64, 64, 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv3d(
            in_channels, out_channels, kernel_size, padding=kernel_size // 2, dtype=torch.bfloat16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, D, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [
        [torch.randn(1, C_IN, 7, 13, 11, dtype=torch.bfloat16)],
        [torch.randn(2, C_IN, 3, 5, 17, dtype=torch.bfloat16)],
    ]
