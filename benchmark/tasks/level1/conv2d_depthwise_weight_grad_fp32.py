"""Weight gradient of a depthwise 7x7 convolution (384 channels, one filter per channel, same
padding) on 56x56 maps, in fp32, as in ConvNeXt blocks: dW[c, ky, kx] = sum over the batch and the
image of dy[c] * the shifted input[c]: 49 dot products of 100352 elements per channel, little
arithmetic per byte, and a reduction over the whole batch for 18816 outputs."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "conv", "conv2d", "depthwise"],
    "dtype": "float32",
    "difficulty": 3,
}

N, C, H, W, KERNEL = 32, 384, 56, 56, 7


class Model(nn.Module):
    def __init__(self, kernel_size: int):
        super().__init__()
        self.kernel_size = kernel_size

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # The depthwise convolution's weight gradient alone, as autograd computes it.
        k, c = self.kernel_size, x.shape[1]
        return torch.nn.grad.conv2d_weight(x, (c, 1, k, k), dy, stride=1, padding=k // 2, groups=c)


def _pair(n, h, w):
    return [torch.randn(n, C, h, w), torch.randn(n, C, h, w)]


def get_inputs():
    return _pair(N, H, W)


def get_init_inputs():
    return [KERNEL]


def get_alt_inputs():
    return [_pair(1, 5, 3), _pair(2, 23, 31)]
