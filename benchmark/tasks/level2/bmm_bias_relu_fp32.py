"""Batched GEMM of two inputs, plus a shared per-column bias and ReLU, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "batched", "epilogue", "bias", "activation"],
    "dtype": "float32",
    "difficulty": 1,
}

B, M, K, N = 64, 512, 512, 1024


class Model(nn.Module):
    def __init__(self, out_features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(out_features) * 2)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.relu(torch.bmm(a, b) + self.bias)


def get_inputs():
    return [torch.randn(B, M, K), torch.randn(B, K, N) / K**0.5 * 3]


def get_init_inputs():
    return [N]


def get_alt_inputs():
    return [
        [torch.randn(1, 5, 33), torch.randn(1, 33, N)],
        [torch.randn(3, 130, 257), torch.randn(3, 257, N) / 16],
    ]
