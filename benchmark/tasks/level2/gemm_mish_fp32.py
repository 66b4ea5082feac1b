"""Linear layer followed by Mish (x * tanh(softplus(x))) in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "bias", "activation"],
    "dtype": "float32",
    "difficulty": 1,
}

M, K, N = 2048, 2048, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.mish(self.linear(x))


def get_inputs():
    return [torch.randn(M, K) * 2]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(9, K) * 2], [torch.randn(250, K) * 2]]
