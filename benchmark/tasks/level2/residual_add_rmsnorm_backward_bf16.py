"""Backward of the fused residual add + RMSNorm of pre-norm transformers, in bf16. The forward
h = x + residual, y = rms_norm(h) * w returns both the new residual stream h and y, so the
backward takes both upstream gradients: dh = dh_out + (RMSNorm's input gradient from dy), which is
the gradient of x and of the residual alike, and dw. Two inputs, two upstream gradients, one row
reduction."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "norm", "rmsnorm", "residual"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

TOKENS, HIDDEN = 16384, 4096


class Model(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(hidden, dtype=torch.bfloat16))

    def forward(
        self, x: torch.Tensor, residual: torch.Tensor, dh_out: torch.Tensor, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. Returns (dh, dweight); dh is also the residual's gradient.
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            h = x + residual
            y = F.rms_norm(h, h.shape[-1:], self.weight, eps=1e-6)
            return torch.autograd.grad((h, y), (x, self.weight), (dh_out, dy))


def _inputs(*lead):
    x, residual, dh_out, dy = (torch.randn(*lead, HIDDEN, dtype=torch.bfloat16) for _ in range(4))
    return [x, residual * 2, dh_out, dy]


def get_inputs():
    return _inputs(TOKENS)


def get_init_inputs():
    return [HIDDEN]


def get_alt_inputs():
    return [_inputs(3), _inputs(2, 301)]
