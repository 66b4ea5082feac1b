"""Attention with per-head RMSNorm on queries and keys (QK-norm), causal mask, softmax, times V, in bf16."""

import math

import torch
import torch.nn as nn

# Tolerance: eager rounds the raw Q K^T scores to bf16, which shifts the largest logits by ~0.02-0.04 and
# P @ V by up to ~3%; a kernel that keeps scores in fp32 (flash-style) is right but differs by that much.
SOLBENCH = {
    "level": 2,
    "tags": ["attention", "norm", "rmsnorm", "gemm", "mask", "softmax"],
    "dtype": "bfloat16",
    "difficulty": 3,
    "atol": 5e-2,
    "rtol": 5e-2,
}

B, H, S, D = 4, 16, 2048, 128


class Model(nn.Module):
    def __init__(self, head_dim: int):
        super().__init__()
        self.q_norm = nn.RMSNorm(head_dim, eps=1e-6, dtype=torch.bfloat16)
        self.k_norm = nn.RMSNorm(head_dim, eps=1e-6, dtype=torch.bfloat16)
        with torch.no_grad():
            self.q_norm.weight.uniform_(1.2, 1.6)
            self.k_norm.weight.uniform_(1.2, 1.6)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        s = q.shape[-2]
        q, k = self.q_norm(q), self.k_norm(k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        future = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1) @ v


def _qkv(b, s):
    q = torch.randn(b, H, s, D, dtype=torch.bfloat16) * 3
    k = torch.randn(b, H, s, D, dtype=torch.bfloat16) * 3
    return [q, k, torch.randn(b, H, s, D, dtype=torch.bfloat16)]


def get_inputs():
    return _qkv(B, S)


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [_qkv(1, 10), _qkv(2, 321)]
