"""Image decoder output layer: 2x transposed convolution, extra learned bias, clamp to [0, 1], map to [-1, 1], in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv_transpose", "conv2d", "bias", "clamp", "scale"],
    "dtype": "float16",
    "difficulty": 2,
}

N, CIN, COUT, H, W = 32, 64, 32, 128, 128


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cout, 4, stride=2, padding=1, bias=False, dtype=torch.float16)
        self.bias = nn.Parameter(torch.rand(cout, 1, 1, dtype=torch.float16) * 0.5 + 0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(self.up(x) + self.bias, 0.0, 1.0) * 2.0 - 1.0


def get_inputs():
    return [torch.randn(N, CIN, H, W, dtype=torch.float16) * 0.5]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [
        [torch.randn(1, CIN, 2, 1, dtype=torch.float16) * 0.5],
        [torch.randn(2, CIN, 17, 33, dtype=torch.float16) * 0.5],
    ]
