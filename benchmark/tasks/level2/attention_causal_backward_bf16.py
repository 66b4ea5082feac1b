"""Backward of causal scaled dot-product attention, in bf16: dQ, dK and dV from Q, K, V and the
output's gradient dO, with P = softmax(Q K^T / sqrt(d)) under a causal mask recomputed. Query rows
are taken 128 at a time against the keys up to their block, so that, like a causal FlashAttention
backward, the reference skips the masked upper triangle: its matrix work, and so the task's
speed-of-light floor, is what a causal kernel needs, not a dense one's.

Tolerance: eager rounds the scores, P, dP and dS to bf16 on the way, so a kernel that keeps them in
fp32 is right but differs from it by a few percent."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "attention", "gemm", "mask", "softmax", "causal"],
    "dtype": "bfloat16",
    "difficulty": 3,
    "atol": 5e-2,
    "rtol": 5e-2,
}

B, H, S, D, BLOCK = 2, 16, 2048, 64, 128


class Model(nn.Module):
    def __init__(self, block: int):
        super().__init__()
        self.block = block

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, do: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        s, scale = q.shape[-2], 1.0 / math.sqrt(q.shape[-1])
        wide = torch.promote_types(q.dtype, torch.float32)  # dK and dV sum over blocks: accumulate in fp32
        dq = torch.empty_like(q)
        dk = torch.zeros(k.shape, dtype=wide, device=k.device)
        dv = torch.zeros(v.shape, dtype=wide, device=v.device)
        for start in range(0, s, self.block):
            end = min(start + self.block, s)
            qb, dob, kb, vb = q[..., start:end, :], do[..., start:end, :], k[..., :end, :], v[..., :end, :]
            future = torch.ones(end - start, end, dtype=torch.bool, device=q.device).triu(start + 1)
            p = torch.softmax(
                ((qb @ kb.transpose(-2, -1)) * scale).masked_fill(future, float("-inf")), dim=-1
            )
            dv[..., :end, :] += p.transpose(-2, -1) @ dob
            dp = dob @ vb.transpose(-2, -1)
            ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True)) * scale
            dq[..., start:end, :] = ds @ kb
            dk[..., :end, :] += ds.transpose(-2, -1) @ qb
        return dq, dk.to(k.dtype), dv.to(v.dtype)


def _inputs(b, h, s, d):
    q, k, v = (torch.randn(b, h, s, d, dtype=torch.bfloat16) for _ in range(3))
    return [q * 2, k, v, torch.randn(b, h, s, d, dtype=torch.bfloat16)]


def get_inputs():
    return _inputs(B, H, S, D)


def get_init_inputs():
    return [BLOCK]


def get_alt_inputs():
    return [_inputs(1, 1, 19, D), _inputs(2, 3, 333, D)]
