"""Backward of a bias add followed by the tanh GELU, y = gelu(x + b), in bf16: the input gradient
dy * gelu'(x + b) and the bias gradient, that same product summed over the 16384 tokens. The fused
bias-GELU backward of Megatron-style MLPs: one elementwise pass with a column reduction."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "activation", "gelu", "bias", "reduction"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

TOKENS, HIDDEN = 16384, 4096


class Model(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.bias = nn.Parameter(0.5 * torch.randn(hidden, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. Returns (dx, dbias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.gelu(x + self.bias, approximate="tanh")
            return torch.autograd.grad(y, (x, self.bias), dy)


def _pair(*lead):
    return [
        torch.randn(*lead, HIDDEN, dtype=torch.bfloat16) * 2,
        torch.randn(*lead, HIDDEN, dtype=torch.bfloat16),
    ]


def get_inputs():
    return _pair(TOKENS)


def get_init_inputs():
    return [HIDDEN]


def get_alt_inputs():
    return [_pair(3), _pair(5, 203)]
