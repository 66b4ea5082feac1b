"""Linear projection followed by RMSNorm with a learned gain, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm", "norm", "rmsnorm"], "dtype": "float32", "difficulty": 2}

M, K, N = 4096, 2048, 2048


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, eps: float):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.gain = nn.Parameter(0.5 + torch.rand(out_features))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        return y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps) * self.gain


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N, 1e-6]


def get_alt_inputs():
    return [[torch.randn(2, K)], [torch.randn(301, K)]]
