"""Backward of a LLaMA-style feed-forward sub-block, y = x + W_down(silu(W_gate n) * W_up n) with
n = rms_norm(x) * w (width 1024, hidden 2816, no biases), over 2 x 1024 tokens in bf16: the
gradients of the input, the norm's weight and the three projections from the input and the upstream
gradient. The gate and up projections are recomputed; six more GEMMs, the SwiGLU derivative and
the RMSNorm backward follow."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 3,
    "tags": ["backward", "mlp", "swiglu", "rmsnorm", "residual"],
    "dtype": "bfloat16",
    "difficulty": 3,
}

BATCH, SEQ, DIM, HIDDEN = 2, 1024, 1024, 2816


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.norm_weight = nn.Parameter(1 + 0.1 * torch.randn(dim, dtype=torch.bfloat16))
        self.gate = nn.Linear(dim, hidden, bias=False, dtype=torch.bfloat16)
        self.up = nn.Linear(dim, hidden, bias=False, dtype=torch.bfloat16)
        self.down = nn.Linear(hidden, dim, bias=False, dtype=torch.bfloat16)
        for proj in (self.gate, self.up):
            nn.init.normal_(proj.weight, std=2 / math.sqrt(dim))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad; the down projection's backward is written out, since autograd
        # would also run its forward GEMM, which no gradient needs (the matrix work sets the floor).
        # Returns (dx, dnorm_weight, dW_gate, dW_up, dW_down).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            n = F.rms_norm(x, x.shape[-1:], self.norm_weight, eps=1e-6)
            # SiLU as g * sigmoid(g): F.silu's fused backward has a decomposition that torch's FLOP
            # counter (which the suite validator runs the reference under) would use, in bf16 steps
            # rounded differently from the fused kernel.
            g = self.gate(n)
            act = g * torch.sigmoid(g) * self.up(n)
            dact = dy @ self.down.weight
            dx, dnorm, dgate, dup = torch.autograd.grad(
                act, (x, self.norm_weight, self.gate.weight, self.up.weight), dact
            )
        ddown = dy.flatten(0, -2).t() @ act.detach().flatten(0, -2)
        return dx + dy, dnorm, dgate, dup, ddown


def _pair(b, s):
    return [torch.randn(b, s, DIM, dtype=torch.bfloat16), torch.randn(b, s, DIM, dtype=torch.bfloat16)]


def get_inputs():
    return _pair(BATCH, SEQ)


def get_init_inputs():
    return [DIM, HIDDEN]


def get_alt_inputs():
    return [_pair(1, 3), _pair(3, 77)]
