"""Backward of scaled dot-product attention (no mask), in bf16: dQ, dK and dV from Q, K, V and the
output's gradient dO. The probabilities P = softmax(Q K^T / sqrt(d)) are recomputed, then
dV = P^T dO, dP = dO V^T, dS = P * (dP - rowsum(dP * P)) / sqrt(d), dQ = dS K, dK = dS^T Q:
FlashAttention's backward, written out the way eager autograd runs it.

Tolerance: eager rounds the scores, P, dP and dS to bf16 on the way (each a 0.4% relative error,
and dS subtracts nearly equal numbers), so a kernel that keeps them in fp32 is right but differs
from it by a few percent."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "attention", "gemm", "softmax"],
    "dtype": "bfloat16",
    "difficulty": 3,
    "atol": 5e-2,
    "rtol": 5e-2,
}

B, H, S, D = 2, 16, 1024, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, do: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        # Written out rather than through autograd: autograd would also recompute O = P V, a GEMM
        # the gradients do not need, and the task's matrix work sets its speed-of-light floor.
        scale = 1.0 / math.sqrt(q.shape[-1])
        p = torch.softmax((q @ k.transpose(-2, -1)) * scale, dim=-1)
        dv = p.transpose(-2, -1) @ do
        dp = do @ v.transpose(-2, -1)
        ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True)) * scale
        return ds @ k, ds.transpose(-2, -1) @ q, dv


def _inputs(b, h, s, d):
    q, k, v = (torch.randn(b, h, s, d, dtype=torch.bfloat16) for _ in range(3))
    return [q * 2, k, v, torch.randn(b, h, s, d, dtype=torch.bfloat16)]


def get_inputs():
    return _inputs(B, H, S, D)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 1, 19, D), _inputs(2, 3, 333, D)]
