"""Matrix-vector product with bias and tanh in fp32: bound by reading a 512 MB weight matrix once."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "gemv", "epilogue", "bias", "activation"],
    "dtype": "float32",
    "difficulty": 2,
}

K, N = 8192, 16384


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.linear(x) * 2)


def get_inputs():
    return [torch.randn(1, K)]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(3, K)], [torch.randn(7, K)]]
