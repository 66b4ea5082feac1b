"""Input gradient of a depthwise 7x7 convolution (384 channels, one filter per channel, same
padding) on 56x56 maps, in fp32, as in ConvNeXt blocks: dx[c] = dy[c] correlated with channel c's
filter flipped. 49 taps per output element and no reduction across channels: about as many FLOPs
as bytes, so neither a GEMM library nor a plain elementwise kernel fits it."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "conv", "conv2d", "depthwise"],
    "dtype": "float32",
    "difficulty": 2,
}

N, C, H, W, KERNEL = 32, 384, 56, 56, 7


class Model(nn.Module):
    def __init__(self, channels: int, kernel_size: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels, 1, kernel_size, kernel_size) / kernel_size)
        self.padding = kernel_size // 2

    def forward(self, dy: torch.Tensor) -> torch.Tensor:
        # The depthwise convolution's input gradient alone, as autograd computes it (no forward
        # needed); with stride 1 and same padding the input has the upstream gradient's shape.
        c = self.weight.shape[0]
        return torch.nn.grad.conv2d_input(dy.shape, self.weight, dy, padding=self.padding, groups=c)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [C, KERNEL]


def get_alt_inputs():
    return [[torch.randn(1, C, 5, 3)], [torch.randn(2, C, 23, 31)]]
