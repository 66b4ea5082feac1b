"""The full backward of a 3x3 convolution (128 -> 128 channels, same padding) on 56x56 maps, in
fp32: the input gradient (a transposed convolution of dy with the weight), the weight gradient (a
correlation of the input with dy, reduced over batch and image) and the bias gradient, from the
input, the upstream gradient and the layer's weight. Two implicit GEMMs over the same dy."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["backward", "conv", "conv2d", "bias"], "dtype": "float32", "difficulty": 3}

N, C_IN, C_OUT, H, W, KERNEL = 16, 128, 128, 56, 56, 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        fan_in = in_channels * kernel_size * kernel_size
        self.weight = nn.Parameter(
            torch.randn(out_channels, in_channels, kernel_size, kernel_size) / math.sqrt(fan_in)
        )
        self.padding = kernel_size // 2

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # The gradients as autograd's convolution backward computes them, without the forward
        # convolution, which none of them needs. Returns (dx, dweight, dbias).
        dx = torch.nn.grad.conv2d_input(x.shape, self.weight, dy, padding=self.padding)
        dweight = torch.nn.grad.conv2d_weight(x, self.weight.shape, dy, padding=self.padding)
        return dx, dweight, dy.sum(dim=(0, 2, 3))


def _pair(n, h, w):
    return [torch.randn(n, C_IN, h, w), torch.randn(n, C_OUT, h, w)]


def get_inputs():
    return _pair(N, H, W)


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [_pair(1, 3, 5), _pair(2, 19, 23)]
