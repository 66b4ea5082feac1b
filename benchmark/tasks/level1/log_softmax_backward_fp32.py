"""Backward of a log-softmax over 1000 classes, in fp32: dx = dy - softmax(x) * sum(dy) per row,
the softmax recomputed from the input. A classifier's output layer in training; 1000 columns is
not a power of two."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["backward", "softmax", "log_softmax"], "dtype": "float32", "difficulty": 1}

ROWS, CLASSES = 32768, 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad.
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            (dx,) = torch.autograd.grad(F.log_softmax(x, dim=-1), x, dy)
        return dx


def _pair(rows, cols):
    return [torch.randn(rows, cols) * 4, torch.randn(rows, cols)]


def get_inputs():
    return _pair(ROWS, CLASSES)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_pair(3, 7), _pair(513, 1001)]
