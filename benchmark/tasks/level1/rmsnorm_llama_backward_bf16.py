"""Backward of LLaMA's RMSNorm in bf16, written as its reference implementation is: the row upcast
to fp32, scaled by rsqrt(mean(x^2) + eps), cast back to bf16 and multiplied by the bf16 weight.
Gradients of the input and the weight from the input and the upstream gradient; eager autograd runs
a chain of small kernels that one fused kernel replaces."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "normalization", "rmsnorm"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

TOKENS, HIDDEN = 16384, 4096


class Model(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(hidden, dtype=torch.bfloat16))
        self.eps = 1e-6

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. Returns (dx, dweight).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            h = x.float()
            h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
            y = self.weight * h.to(x.dtype)
            return torch.autograd.grad(y, (x, self.weight), dy)


def _pair(*shape):
    return [torch.randn(*shape, dtype=torch.bfloat16) * 2, torch.randn(*shape, dtype=torch.bfloat16)]


def get_inputs():
    return _pair(TOKENS, HIDDEN)


def get_init_inputs():
    return [HIDDEN]


def get_alt_inputs():
    return [_pair(3, HIDDEN), _pair(7, 93, HIDDEN)]
