"""Classifier head with bias: GEMM to 16384 classes followed by log-softmax, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "log_softmax", "softmax", "classifier"],
    "dtype": "float32",
    "difficulty": 2,
}

M, K, C = 1024, 1024, 16384


class Model(nn.Module):
    def __init__(self, hidden: int, classes: int):
        super().__init__()
        self.head = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(self.head(x), dim=-1)


def get_inputs():
    return [torch.randn(M, K) * 3]


def get_init_inputs():
    return [K, C]


def get_alt_inputs():
    return [[torch.randn(4, K) * 3], [torch.randn(129, K) * 3]]
