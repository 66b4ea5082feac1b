"""Random Fourier feature encoding: project inputs with a fixed Gaussian matrix, scale by 2 pi, emit [sin, cos], in fp32."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "elementwise", "concat"],
    "dtype": "float32",
    "difficulty": 2,
}

M, K, F = 131072, 64, 512


class Model(nn.Module):
    def __init__(self, in_features: int, frequencies: int, sigma: float):
        super().__init__()
        self.register_buffer("proj", torch.randn(in_features, frequencies) * sigma)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        angles = 2 * math.pi * (x @ self.proj)
        return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1)


def get_inputs():
    return [torch.rand(M, K) * 2 - 1]


def get_init_inputs():
    return [K, F, 0.2]


def get_alt_inputs():
    return [[torch.rand(1, K) * 2 - 1], [torch.rand(4, 25, K) * 2 - 1]]
