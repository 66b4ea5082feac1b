"""Backward of training-mode batch normalization followed by ReLU, y = relu(bn(x)), over 128
channels of 56x56 maps in fp16: input, weight and bias gradients from the input and the upstream
gradient. The ReLU's mask needs the normalized output, so the batch statistics are computed before
the two per-channel reductions of the BN backward: a ResNet training step's commonest pair."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "norm", "batchnorm", "activation", "relu"],
    "dtype": "float16",
    "difficulty": 2,
}

N, C, H, W = 64, 128, 56, 56


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(channels, dtype=torch.float16))
        self.bias = nn.Parameter(0.2 * torch.randn(channels, dtype=torch.float16))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Autograd is the reference (forward recomputed with batch statistics, then backward), with
        # grad mode switched on under the harness's no_grad. Returns (dx, dweight, dbias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.relu(F.batch_norm(x, None, None, self.weight, self.bias, training=True, eps=1e-5))
            return torch.autograd.grad(y, (x, self.weight, self.bias), dy)


def _pair(*shape):
    return [torch.randn(*shape, dtype=torch.float16) * 2 + 1, torch.randn(*shape, dtype=torch.float16)]


def get_inputs():
    return _pair(N, C, H, W)


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [_pair(2, C, 5, 3), _pair(3, C, 17, 29)]
