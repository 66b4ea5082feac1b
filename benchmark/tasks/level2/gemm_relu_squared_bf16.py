"""Linear layer with the squared-ReLU activation (relu(x)^2) in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "bias", "activation"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

M, K, N = 8192, 4096, 8192


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x)).square()


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(5, K, dtype=torch.bfloat16) * 2], [torch.randn(131, K, dtype=torch.bfloat16) * 2]]
