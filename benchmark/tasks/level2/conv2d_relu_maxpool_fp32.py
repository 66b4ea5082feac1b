"""3x3 convolution, ReLU, then 2x2 max pooling (a VGG-style stage), in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "activation", "pooling", "maxpool"],
    "dtype": "float32",
    "difficulty": 2,
}

N, CIN, COUT, H, W = 32, 32, 64, 128, 128


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.max_pool2d(torch.relu(self.conv(x)), 2)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 2, 5)], [torch.randn(3, CIN, 31, 44)]]
