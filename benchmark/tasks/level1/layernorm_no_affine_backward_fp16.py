"""Backward of layer normalization without an affine over 1024 features, in fp16: the input gradient
dx = (dy - mean(dy) - xhat * mean(dy * xhat)) / std per row, from the input and the upstream
gradient. Two row reductions feed one elementwise pass; fp16 needs them accumulated wider."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "normalization", "layernorm"],
    "dtype": "float16",
    "difficulty": 1,
}

ROWS, FEATURES = 32768, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad.
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.layer_norm(x, x.shape[-1:], eps=1e-5)
            (dx,) = torch.autograd.grad(y, x, dy)
        return dx


def _pair(*shape):
    return [torch.randn(*shape, dtype=torch.float16) * 3 - 1, torch.randn(*shape, dtype=torch.float16)]


def get_inputs():
    return _pair(ROWS, FEATURES)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_pair(3, 1000), _pair(257, 33)]
