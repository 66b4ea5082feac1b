"""Backward of layer normalization over 4096 features with a learned affine, in fp32: the gradients
of the input, the weight and the bias from the layer's input and the upstream gradient, the row
statistics recomputed (as under activation checkpointing). A transformer's training step runs it
twice per layer."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "normalization", "layernorm"],
    "dtype": "float32",
    "difficulty": 2,
}

ROWS, FEATURES = 8192, 4096


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(features))
        self.bias = nn.Parameter(0.1 * torch.randn(features))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # PyTorch's autograd is the reference: the forward recomputed, then its backward. The
        # harness calls forward under no_grad, so grad mode is switched on here; no graph outlives
        # the call. Returns (dx, dweight, dbias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.layer_norm(x, x.shape[-1:], self.weight, self.bias, eps=1e-5)
            return torch.autograd.grad(y, (x, self.weight, self.bias), dy)


def _pair(*shape):
    return [torch.randn(*shape) * 2 + 1, torch.randn(*shape)]


def get_inputs():
    return _pair(ROWS, FEATURES)


def get_init_inputs():
    return [FEATURES]


def get_alt_inputs():
    return [_pair(3, FEATURES), _pair(1001, FEATURES)]
