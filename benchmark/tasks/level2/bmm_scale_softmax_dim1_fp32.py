"""Batched GEMM, scaled, then softmax over the row dimension (a column-wise softmax), in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm", "batched", "softmax", "scale"], "dtype": "float32", "difficulty": 2}

B, M, K, N = 16, 2048, 128, 2048


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.softmax(torch.bmm(a, b) * self.scale, dim=1)


def get_inputs():
    return [torch.randn(B, M, K), torch.randn(B, K, N)]


def get_init_inputs():
    return [0.2]


def get_alt_inputs():
    return [[torch.randn(2, 33, K), torch.randn(2, K, 17)], [torch.randn(1, 1000, K), torch.randn(1, K, 3)]]
