"""Backward of y = relu(conv3x3(x) + b) (64 -> 128 channels, same padding, 64x64 maps), in bf16,
from the output y the ReLU saved: input, weight and bias gradients. The mask y > 0 is read from y
(recomputing the convolution in bf16 would flip the sign of near-zero outputs against a
higher-precision answer); the masked dy then drives the input-gradient and the weight-gradient
convolutions."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "conv", "conv2d", "activation", "relu"],
    "dtype": "bfloat16",
    "difficulty": 3,
}

N, C_IN, C_OUT, H, W, KERNEL = 16, 64, 128, 64, 64, 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(
            in_channels, out_channels, kernel_size, padding=kernel_size // 2, dtype=torch.bfloat16
        )

    def forward(self, x: torch.Tensor, y: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Returns (dx, dweight, dbias) of the layer whose output was y, for the upstream gradient dy.
        weight, padding = self.conv.weight, self.conv.padding
        g = dy * (y > 0)
        dx = torch.nn.grad.conv2d_input(x.shape, weight, g, padding=padding)
        dweight = torch.nn.grad.conv2d_weight(x, weight.shape, g, padding=padding)
        return dx, dweight, g.sum((0, 2, 3))


def _inputs(n, h, w):
    return [
        torch.randn(n, C_IN, h, w, dtype=torch.bfloat16),
        torch.relu(torch.randn(n, C_OUT, h, w, dtype=torch.bfloat16)),
        torch.randn(n, C_OUT, h, w, dtype=torch.bfloat16),
    ]


def get_inputs():
    return _inputs(N, H, W)


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [_inputs(1, 4, 6), _inputs(2, 17, 31)]
