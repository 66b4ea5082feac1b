"""Backward of the scaled, causally masked softmax of attention scores, y = softmax(scale * x with
the future masked), in bf16: dx = scale * y * (dy - rowsum(dy * y)), zero above the diagonal,
from the raw scores and the upstream gradient. Megatron's fused scaled-masked-softmax backward;
a kernel can skip the masked half of every row.

Tolerance: the gradient's elements are of order scale / (row length), so the absolute tolerance is
scaled down with them; the relative tolerance stays bf16's."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "softmax", "mask", "causal", "attention"],
    "dtype": "bfloat16",
    "difficulty": 2,
    "atol": 1e-7,
    "rtol": 2e-2,
}

B, H, S, SCALE = 4, 16, 2048, 0.125


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad.
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            q_len, k_len = x.shape[-2:]
            future = torch.ones(q_len, k_len, dtype=torch.bool, device=x.device).triu(k_len - q_len + 1)
            y = torch.softmax((x * self.scale).masked_fill(future, float("-inf")), dim=-1)
            (dx,) = torch.autograd.grad(y, x, dy)
        return dx


def _pair(b, h, s):
    return [torch.randn(b, h, s, s, dtype=torch.bfloat16) * 16, torch.randn(b, h, s, s, dtype=torch.bfloat16)]


def get_inputs():
    return _pair(B, H, S)


def get_init_inputs():
    return [SCALE]


def get_alt_inputs():
    return [_pair(1, 1, 7), _pair(2, 3, 301)]
