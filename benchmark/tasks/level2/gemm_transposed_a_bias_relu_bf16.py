"""GEMM whose activation operand arrives feature-major ([K, M], read transposed), plus bias and ReLU, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "transpose", "bias", "activation"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

K, M, N = 4096, 8192, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = nn.Parameter(
            torch.randn(in_features, out_features, dtype=torch.bfloat16) / in_features**0.5
        )
        self.bias = nn.Parameter(torch.randn(out_features, dtype=torch.bfloat16) * 0.1)

    def forward(self, x_t: torch.Tensor) -> torch.Tensor:
        return torch.relu(x_t.t() @ self.weight + self.bias)


def get_inputs():
    return [torch.randn(K, M, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(K, 3, dtype=torch.bfloat16)], [torch.randn(K, 999, dtype=torch.bfloat16)]]
