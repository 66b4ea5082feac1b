"""Input gradient of a 3x3 convolution (128 -> 128 channels, stride 1, same padding) on 56x56 maps,
in fp32: dx = the transposed convolution of the upstream gradient with the layer's weight. The
data-gradient half of every conv layer's backward; the input itself is not needed."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["backward", "conv", "conv2d"], "dtype": "float32", "difficulty": 3}

N, C_IN, C_OUT, H, W, KERNEL = 32, 128, 128, 56, 56, 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        fan_in = in_channels * kernel_size * kernel_size
        self.weight = nn.Parameter(
            torch.randn(out_channels, in_channels, kernel_size, kernel_size) / math.sqrt(fan_in)
        )
        self.padding = kernel_size // 2

    def forward(self, dy: torch.Tensor) -> torch.Tensor:
        # The convolution's input gradient alone, as autograd computes it (no forward needed);
        # with stride 1 and same padding the input has the upstream gradient's spatial size.
        n, _, h, w = dy.shape
        shape = (n, self.weight.shape[1], h, w)
        return torch.nn.grad.conv2d_input(shape, self.weight, dy, stride=1, padding=self.padding)


def get_inputs():
    return [torch.randn(N, C_OUT, H, W)]


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [[torch.randn(1, C_OUT, 7, 5)], [torch.randn(3, C_OUT, 29, 17)]]
