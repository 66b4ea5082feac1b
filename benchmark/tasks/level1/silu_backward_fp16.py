"""Backward of SiLU (swish), in fp16: dx = dy * s * (1 + x (1 - s)) with s = sigmoid(x), from the
input and the upstream gradient."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["backward", "activation", "silu"], "dtype": "float16", "difficulty": 1}

ROWS, COLS = 16384, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad.
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            (dx,) = torch.autograd.grad(F.silu(x), x, dy)
        return dx


def _pair(*shape):
    return [torch.randn(*shape, dtype=torch.float16) * 3, torch.randn(*shape, dtype=torch.float16)]


def get_inputs():
    return _pair(ROWS, COLS)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_pair(3, 7), _pair(999, 65)]
