"""3x3x3 convolution followed by a softmax over output channels at every voxel (a segmentation head), in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["conv", "conv3d", "softmax"], "dtype": "float32", "difficulty": 2}

N, CIN, COUT, D, H, W = 4, 16, 32, 32, 64, 64


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv3d(cin, cout, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.conv(x) * 4, dim=1)


def get_inputs():
    return [torch.randn(N, CIN, D, H, W)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 2, 3, 5)], [torch.randn(2, CIN, 7, 13, 10)]]
