"""Backward of bidirectional attention over a padded batch, in fp32: each sequence attends only to
its first `lengths[b]` keys. dQ, dK and dV from Q, K, V, the lengths and dO, with the masked
softmax recomputed; padded keys get zero dK and dV. An encoder's attention backward on variable
length inputs: a kernel can skip the padded key blocks entirely."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "attention", "gemm", "mask", "softmax"],
    "dtype": "float32",
    "difficulty": 3,
}

B, H, S, D = 8, 12, 512, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, lengths: torch.Tensor, do: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        # Written out rather than through autograd, which would also recompute O = P V, a GEMM the
        # gradients do not need (the task's matrix work sets its speed-of-light floor).
        s, scale = k.shape[-2], 1.0 / math.sqrt(q.shape[-1])
        padded = torch.arange(s, device=k.device) >= lengths[:, None]  # [B, S] keys past each length
        scores = ((q @ k.transpose(-2, -1)) * scale).masked_fill(padded[:, None, None, :], float("-inf"))
        p = torch.softmax(scores, dim=-1)
        dv = p.transpose(-2, -1) @ do
        dp = do @ v.transpose(-2, -1)
        ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True)) * scale
        return ds @ k, ds.transpose(-2, -1) @ q, dv


def _inputs(b, h, s, d):
    q, k, v, do = (torch.randn(b, h, s, d) for _ in range(4))
    lengths = torch.randint(1, s + 1, (b,))
    lengths[0] = s  # one full sequence
    return [q * 1.5, k, v, lengths, do]


def get_inputs():
    return _inputs(B, H, S, D)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 2, 7, D), _inputs(3, 2, 301, D)]
