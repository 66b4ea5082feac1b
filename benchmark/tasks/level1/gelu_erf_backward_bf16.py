"""Backward of the exact (erf) GELU, in bf16: dx = dy * (Phi(x) + x * phi(x)) with Phi and phi the
standard normal CDF and density, from the input and the upstream gradient. The MLP activation of
BERT-style models."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["backward", "activation", "gelu"], "dtype": "bfloat16", "difficulty": 1}

ROWS, COLS = 16384, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad.
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            (dx,) = torch.autograd.grad(F.gelu(x), x, dy)
        return dx


def _pair(*shape):
    return [torch.randn(*shape, dtype=torch.bfloat16) * 2, torch.randn(*shape, dtype=torch.bfloat16)]


def get_inputs():
    return _pair(ROWS, COLS)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_pair(3, 7), _pair(2, 33, 1001)]
