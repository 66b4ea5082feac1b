"""Weight and bias gradients of a 3x3 convolution (64 -> 128 channels, same padding) on 64x64 maps,
in bf16: dW[o, i, ky, kx] = sum over the batch and every output pixel of dy * the shifted input,
db = dy summed per channel. A reduction over 131072 positions per weight: the accumulator must be
wider than bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["backward", "conv", "conv2d"], "dtype": "bfloat16", "difficulty": 3}

N, C_IN, C_OUT, H, W, KERNEL = 32, 64, 128, 64, 64, 3


class Model(nn.Module):
    def __init__(self, kernel_size: int):
        super().__init__()
        self.kernel_size = kernel_size

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # The convolution's weight and bias gradients alone, as autograd computes them (the weight's
        # values are not needed). Returns (dweight, dbias).
        k = self.kernel_size
        shape = (dy.shape[1], x.shape[1], k, k)
        dweight = torch.nn.grad.conv2d_weight(x, shape, dy, stride=1, padding=k // 2)
        return dweight, dy.sum(dim=(0, 2, 3))


def _pair(n, h, w):
    return [
        torch.randn(n, C_IN, h, w, dtype=torch.bfloat16),
        torch.randn(n, C_OUT, h, w, dtype=torch.bfloat16),
    ]


def get_inputs():
    return _pair(N, H, W)


def get_init_inputs():
    return [KERNEL]


def get_alt_inputs():
    return [_pair(1, 5, 7), _pair(3, 33, 19)]
