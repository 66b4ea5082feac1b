"""Backward of group normalization (32 groups over 512 channels, learned affine) on 32x32 feature
maps, in bf16: input, weight and bias gradients. Each group spans 16 channels x 1024 pixels, and
the affine gradients reduce each channel over the batch and the image."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "normalization", "groupnorm"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

N, C, H, W, GROUPS = 32, 512, 32, 32, 32


class Model(nn.Module):
    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.groups = groups
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(channels, dtype=torch.bfloat16))
        self.bias = nn.Parameter(0.1 * torch.randn(channels, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. Returns (dx, dweight, dbias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.group_norm(x, self.groups, self.weight, self.bias, eps=1e-5)
            return torch.autograd.grad(y, (x, self.weight, self.bias), dy)


def _pair(*shape):
    return [torch.randn(*shape, dtype=torch.bfloat16) * 2 + 1, torch.randn(*shape, dtype=torch.bfloat16)]


def get_inputs():
    return _pair(N, C, H, W)


def get_init_inputs():
    return [C, GROUPS]


def get_alt_inputs():
    return [_pair(1, C, 3, 5), _pair(2, C, 17, 15)]
