"""Expert-style projection: linear, GELU, then each row weighted by its routing probability, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "activation", "gating", "broadcast"],
    "dtype": "float32",
    "difficulty": 1,
}

M, K, N = 4096, 2048, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor, route_prob: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.linear(x)) * route_prob.unsqueeze(-1)


def get_inputs():
    return [torch.randn(M, K) * 2, torch.rand(M)]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(3, K) * 2, torch.rand(3)], [torch.randn(77, K) * 2, torch.rand(77)]]
