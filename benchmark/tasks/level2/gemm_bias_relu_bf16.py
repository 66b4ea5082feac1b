"""Linear layer (GEMM + bias) followed by ReLU in bf16: the most common GEMM epilogue."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "bias", "activation"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

M, K, N = 16384, 4096, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(3, K, dtype=torch.bfloat16)], [torch.randn(1000, K, dtype=torch.bfloat16)]]
