"""3x3 convolution with bias followed by ReLU, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["conv", "conv2d", "bias", "activation"], "dtype": "float32", "difficulty": 1}

N, CIN, COUT, H, W = 32, 64, 128, 64, 64


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 7, 9)], [torch.randn(3, CIN, 33, 20)]]
