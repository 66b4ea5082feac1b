"""Input gradient of a strided 1D convolution (kernel 4, stride 2, padding 1; 512 -> 512 channels)
over 8192-step sequences, in bf16: dx = the transposed convolution of the upstream gradient with
the weight, each input step receiving the taps of the two outputs that read it. The downsampling
layers of audio encoders."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "conv", "conv1d", "strided"],
    "dtype": "bfloat16",
    "difficulty": 3,
}

N, C_IN, C_OUT, L_OUT, KERNEL, STRIDE = 16, 512, 512, 4096, 4, 2


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int):
        super().__init__()
        weight = torch.randn(out_channels, in_channels, kernel_size) / math.sqrt(in_channels * kernel_size)
        self.weight = nn.Parameter(weight.to(torch.bfloat16))
        self.stride = stride
        self.padding = (kernel_size - stride) // 2

    def forward(self, dy: torch.Tensor) -> torch.Tensor:
        # The convolution's input gradient alone, as autograd computes it (no forward needed). The
        # input length is the one the stride and padding map exactly onto dy's length.
        n, _, length = dy.shape
        k = self.weight.shape[-1]
        shape = (n, self.weight.shape[1], (length - 1) * self.stride - 2 * self.padding + k)
        return torch.nn.grad.conv1d_input(shape, self.weight, dy, stride=self.stride, padding=self.padding)


def get_inputs():
    return [torch.randn(N, C_OUT, L_OUT, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL, STRIDE]


def get_alt_inputs():
    return [
        [torch.randn(1, C_OUT, 3, dtype=torch.bfloat16)],
        [torch.randn(3, C_OUT, 1001, dtype=torch.bfloat16)],
    ]
