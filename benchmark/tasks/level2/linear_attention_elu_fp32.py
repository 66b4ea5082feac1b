"""Non-causal linear attention with the elu+1 feature map: phi(Q) (phi(K)^T V) normalised by phi(Q) . sum phi(K), in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["attention", "gemm", "batched", "reduction", "activation"],
    "dtype": "float32",
    "difficulty": 3,
}

B, H, S, D = 8, 8, 4096, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
        kv = phi_k.transpose(-2, -1) @ v  # [B, H, D, D]
        norm = phi_q @ phi_k.sum(dim=-2, keepdim=True).transpose(-2, -1)  # [B, H, S, 1]
        return (phi_q @ kv) / norm


def _qkv(b, h, s):
    return [torch.randn(b, h, s, D), torch.randn(b, h, s, D), torch.randn(b, h, s, D) + 0.5]


def get_inputs():
    return _qkv(B, H, S)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_qkv(1, 1, 3), _qkv(2, 3, 500)]
