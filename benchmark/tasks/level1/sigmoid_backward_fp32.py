"""Backward of the logistic sigmoid, in fp32: dx = dy * s * (1 - s) with s = sigmoid(x) recomputed
from the input (a gate's gradient)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["backward", "activation", "sigmoid"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad.
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            (dx,) = torch.autograd.grad(torch.sigmoid(x), x, dy)
        return dx


def _pair(*shape):
    return [torch.randn(*shape, dtype=torch.float32) * 3, torch.randn(*shape, dtype=torch.float32)]


def get_inputs():
    return _pair(ROWS, COLS)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_pair(3, 7), _pair(4, 9, 1001)]
