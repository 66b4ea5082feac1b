"""Backward of layer normalization over 2048 features with a learned affine, in bf16: input, weight
and bias gradients from the input and the upstream gradient. The weight and bias gradients reduce
over all 16384 tokens, so where they are accumulated (and in what precision) matters."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "normalization", "layernorm"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

TOKENS, HIDDEN = 16384, 2048


class Model(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(hidden, dtype=torch.bfloat16))
        self.bias = nn.Parameter(0.1 * torch.randn(hidden, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. Returns (dx, dweight, dbias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.layer_norm(x, x.shape[-1:], self.weight, self.bias, eps=1e-5)
            return torch.autograd.grad(y, (x, self.weight, self.bias), dy)


def _pair(*shape):
    return [torch.randn(*shape, dtype=torch.bfloat16) * 2 + 1, torch.randn(*shape, dtype=torch.bfloat16)]


def get_inputs():
    return _pair(TOKENS, HIDDEN)


def get_init_inputs():
    return [HIDDEN]


def get_alt_inputs():
    return [_pair(3, HIDDEN), _pair(5, 131, HIDDEN)]
