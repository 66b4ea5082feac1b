"""Backward of group normalization (32 groups, 320 channels) followed by SiLU, y = silu(gn(x)), on
64x64 maps in fp32, as in a diffusion U-Net's resblocks: input, weight and bias gradients from the
input and the upstream gradient. The SiLU derivative needs the normalized value, so the group
statistics come first; then per-group and per-channel reductions."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "norm", "groupnorm", "activation", "silu"],
    "dtype": "float32",
    "difficulty": 2,
}

N, C, H, W, GROUPS = 16, 320, 64, 64, 32


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
            y = F.silu(F.group_norm(x, self.groups, self.weight, self.bias, eps=1e-5))
            return torch.autograd.grad(y, (x, self.weight, self.bias), dy)


def _pair(*shape):
    return [torch.randn(*shape) * 2 - 1, torch.randn(*shape)]


def get_inputs():
    return _pair(N, C, H, W)


def get_init_inputs():
    return [C, GROUPS]


def get_alt_inputs():
    return [_pair(1, C, 3, 5), _pair(2, C, 21, 13)]
