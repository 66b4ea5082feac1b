"""Linear layer, tanh, then a constant gain, in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "activation", "scale"],
    "dtype": "float16",
    "difficulty": 1,
}

M, K, N = 8192, 2048, 8192


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, gain: float):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=torch.float16)
        self.gain = gain

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.linear(x)) * self.gain


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16)]


def get_init_inputs():
    return [K, N, 2.5]


def get_alt_inputs():
    return [[torch.randn(3, K, dtype=torch.float16)], [torch.randn(601, K, dtype=torch.float16)]]
