"""Backward of the tanh-approximated GELU, in fp32: dx = dy * d/dx [x/2 (1 + tanh(sqrt(2/pi) (x +
0.044715 x^3)))], from the input and the upstream gradient. The MLP activation of GPT-2-style
models; memory-bound, one tanh per element."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["backward", "activation", "gelu"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad.
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            (dx,) = torch.autograd.grad(F.gelu(x, approximate="tanh"), x, dy)
        return dx


def _pair(*shape):
    return [torch.randn(*shape, dtype=torch.float32) * 2, torch.randn(*shape, dtype=torch.float32)]


def get_inputs():
    return _pair(ROWS, COLS)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_pair(3, 7), _pair(5, 1001)]
