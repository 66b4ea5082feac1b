"""Backward of the SwiGLU gate, silu(a) * b with a and b the two halves of the last dimension, in
bf16: the gradients of both halves (written into one tensor of the input's shape) from the input
and the upstream gradient. The activation of LLaMA-style MLPs; one fused elementwise pass reads two
inputs per output element and writes two."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "activation", "swiglu", "gated"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

TOKENS, HIDDEN = 8192, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. x is [..., 2 * hidden]; dy and the result y are [..., hidden].
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            a, b = x.chunk(2, dim=-1)
            (dx,) = torch.autograd.grad(F.silu(a) * b, x, dy)
        return dx


def _pair(*lead, hidden):
    return [
        torch.randn(*lead, 2 * hidden, dtype=torch.bfloat16) * 2,
        torch.randn(*lead, hidden, dtype=torch.bfloat16),
    ]


def get_inputs():
    return _pair(TOKENS, hidden=HIDDEN)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_pair(3, hidden=5), _pair(2, 77, hidden=1000)]
