"""Backward of y = relu(conv3x3(x) + b) (64 -> 128 channels, same padding, 64x64 maps), in bf16:
input, weight and bias gradients. The ReLU's mask needs the convolution's output, so the forward
convolution is recomputed; then the masked dy drives both the input-gradient and the
weight-gradient convolutions."""

import torch
import torch.nn as nn
import torch.nn.functional as F

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

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. Returns (dx, dweight, dbias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            # (functional on the leaf x: torch's FLOP counter, which counts the floor, cannot track a module
            # called on an autograd leaf under autograd.grad)
            y = F.relu(F.conv2d(x, self.conv.weight, self.conv.bias, padding=self.conv.padding))
            return torch.autograd.grad(y, (x, self.conv.weight, self.conv.bias), dy)


def _pair(n, h, w):
    return [
        torch.randn(n, C_IN, h, w, dtype=torch.bfloat16),
        torch.randn(n, C_OUT, h, w, dtype=torch.bfloat16),
    ]


def get_inputs():
    return _pair(N, H, W)


def get_init_inputs():
    return [C_IN, C_OUT, KERNEL]


def get_alt_inputs():
    return [_pair(1, 4, 6), _pair(2, 17, 31)]
