"""beta * C + alpha * (A @ W) with a full residual matrix C, then ELU, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "residual", "activation"],
    "dtype": "float32",
    "difficulty": 1,
}

M, K, N = 2048, 4096, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, alpha: float, beta: float):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features) / in_features**0.5)
        self.alpha, self.beta = alpha, beta

    def forward(self, a: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return F.elu(torch.addmm(c, a, self.weight, beta=self.beta, alpha=self.alpha))


def get_inputs():
    return [torch.randn(M, K), torch.randn(M, N)]


def get_init_inputs():
    return [K, N, 1.5, 0.5]


def get_alt_inputs():
    return [[torch.randn(3, K), torch.randn(3, N)], [torch.randn(100, K), torch.randn(100, N)]]
