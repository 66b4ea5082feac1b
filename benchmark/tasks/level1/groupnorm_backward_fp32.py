"""Backward of group normalization (32 groups over 256 channels, learned affine) on 64x64 feature
maps, in fp32: input, weight and bias gradients from the input and the upstream gradient. Per-group
reductions for the input gradient and per-channel ones for the affine gradients cut the tensor two
ways; the normalization of diffusion U-Nets."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "normalization", "groupnorm"],
    "dtype": "float32",
    "difficulty": 2,
}

N, C, H, W, GROUPS = 16, 256, 64, 64, 32


class Model(nn.Module):
    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.groups = groups
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(channels))
        self.bias = nn.Parameter(0.1 * torch.randn(channels))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. Returns (dx, dweight, dbias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.group_norm(x, self.groups, self.weight, self.bias, eps=1e-5)
            return torch.autograd.grad(y, (x, self.weight, self.bias), dy)


def _pair(*shape):
    return [torch.randn(*shape) * 2 + 1, torch.randn(*shape)]


def get_inputs():
    return _pair(N, C, H, W)


def get_init_inputs():
    return [C, GROUPS]


def get_alt_inputs():
    return [_pair(1, C, 5, 7), _pair(3, C, 19, 33)]
