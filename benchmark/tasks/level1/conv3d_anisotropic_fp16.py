"""3D convolution with a 3x4x4 kernel and stride (1, 2, 2) in fp16 (spatial downsampling)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["conv", "conv3d", "strided"], "dtype": "float16", "difficulty": 3}

N, C_IN, C_OUT, D, H, W = 8, 32, 64, 16, 128, 128


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv3d(
            in_channels, out_channels, (3, 4, 4), stride=(1, 2, 2), padding=1, dtype=torch.float16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C_IN, D, H, W, dtype=torch.float16)]


def get_init_inputs():
    return [C_IN, C_OUT]


def get_alt_inputs():
    return [
        [torch.randn(1, C_IN, 7, 13, 11, dtype=torch.float16)],
        [torch.randn(2, C_IN, 3, 6, 17, dtype=torch.float16)],
    ]
