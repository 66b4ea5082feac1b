"""3x3x3 volumetric convolution with bias followed by leaky ReLU, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv3d", "bias", "activation"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

N, CIN, COUT, D, H, W = 16, 32, 64, 16, 64, 64


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv3d(cin, cout, 3, padding=1, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(self.conv(x), 0.2)


def get_inputs():
    return [torch.randn(N, CIN, D, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [
        [torch.randn(1, CIN, 3, 5, 7, dtype=torch.bfloat16)],
        [torch.randn(2, CIN, 9, 16, 11, dtype=torch.bfloat16)],
    ]
