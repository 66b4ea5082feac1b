"""Gaussian (RBF) kernel matrix exp(-gamma ||x_i - y_j||^2) between two point sets, via norms and a GEMM, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "reduction", "activation"],
    "dtype": "float32",
    "difficulty": 2,
}

NX, NY, D = 8192, 8192, 128


class Model(nn.Module):
    def __init__(self, gamma: float):
        super().__init__()
        self.gamma = gamma

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        sq = (x * x).sum(-1, keepdim=True) + (y * y).sum(-1)[None, :] - 2 * (x @ y.t())
        return torch.exp(-self.gamma * sq.clamp_min(0))


def get_inputs():
    return [torch.randn(NX, D), torch.randn(NY, D)]


def get_init_inputs():
    return [1.0 / 128]


def get_alt_inputs():
    return [[torch.randn(1, D), torch.randn(3, D)], [torch.randn(100, D), torch.randn(77, D)]]
