"""Volumetric 2x upsampling transposed convolution, GELU, then a constant scale, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv_transpose", "conv3d", "activation", "scale"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

N, CIN, COUT, D, H, W = 16, 64, 32, 16, 32, 32


class Model(nn.Module):
    def __init__(self, cin: int, cout: int, scale: float):
        super().__init__()
        self.up = nn.ConvTranspose3d(
            cin, cout, 3, stride=2, padding=1, output_padding=1, dtype=torch.bfloat16
        )
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.up(x) * 3) * self.scale


def get_inputs():
    return [torch.randn(N, CIN, D, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CIN, COUT, 0.8]


def get_alt_inputs():
    return [
        [torch.randn(1, CIN, 1, 2, 3, dtype=torch.bfloat16)],
        [torch.randn(2, CIN, 5, 9, 6, dtype=torch.bfloat16)],
    ]
