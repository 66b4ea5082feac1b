"""1D transposed convolution upsampling a sequence 2x (a vocoder-style layer), then tanh, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv_transpose", "conv1d", "activation"],
    "dtype": "float32",
    "difficulty": 2,
}

N, CIN, COUT, L = 32, 256, 128, 2048


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.up = nn.ConvTranspose1d(cin, cout, 4, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.up(x) * 2)


def get_inputs():
    return [torch.randn(N, CIN, L)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 1)], [torch.randn(3, CIN, 501)]]
