"""Backward of a log-softmax over 16384-wide rows, in fp16: dx = dy - softmax(x) * sum(dy), the
softmax recomputed from the input. The row sum of the upstream gradient and the softmax's own
statistics must be accumulated wider than fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["backward", "softmax", "log_softmax"], "dtype": "float16", "difficulty": 2}

ROWS, COLS = 4096, 16384


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
    return [torch.randn(rows, cols, dtype=torch.float16) * 3, torch.randn(rows, cols, dtype=torch.float16)]


def get_inputs():
    return _pair(ROWS, COLS)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_pair(2, 999), _pair(301, 4097)]
