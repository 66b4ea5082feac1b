"""2x upsampling transposed convolution (kernel 4, stride 2) with bias, ReLU and an output scale, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv_transpose", "conv2d", "bias", "activation", "scale"],
    "dtype": "float32",
    "difficulty": 2,
}

N, CIN, COUT, H, W = 16, 128, 64, 64, 64


class Model(nn.Module):
    def __init__(self, cin: int, cout: int, scale: float):
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cout, 4, stride=2, padding=1)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.up(x)) * self.scale


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, 0.5]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 1, 3)], [torch.randn(3, CIN, 13, 22)]]
