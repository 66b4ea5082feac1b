"""Backward of training-mode 2D batch normalization (batch statistics) over 128 channels, in fp32:
the input, weight and bias gradients from the input and the upstream gradient. Each channel's
input gradient needs two reductions over the whole batch and image (sum dy, sum dy * xhat) before
an elementwise pass: the training step of every batch-normalized convnet."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "normalization", "batchnorm"],
    "dtype": "float32",
    "difficulty": 2,
}

N, C, H, W = 64, 128, 56, 56


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(channels))
        self.bias = nn.Parameter(0.1 * torch.randn(channels))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Autograd is the reference (forward recomputed with batch statistics, no running stats to
        # update; then backward), with grad mode switched on under the harness's no_grad.
        # Returns (dx, dweight, dbias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.batch_norm(x, None, None, self.weight, self.bias, training=True, eps=1e-5)
            return torch.autograd.grad(y, (x, self.weight, self.bias), dy)


def _pair(*shape):
    return [torch.randn(*shape) * 1.5 + 0.5, torch.randn(*shape)]


def get_inputs():
    return _pair(N, C, H, W)


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [_pair(2, C, 7, 9), _pair(5, C, 31, 17)]
