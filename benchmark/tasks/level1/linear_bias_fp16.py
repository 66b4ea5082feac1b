"""fp16 nn.Linear (6144 -> 6144 with bias) over a batch of 8192 rows."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm", "bias"], "dtype": "float16", "difficulty": 3}

ROWS, FEATURES = 8192, 6144


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.linear = nn.Linear(features, features, dtype=torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


def get_inputs():
    return [torch.randn(ROWS, FEATURES, dtype=torch.float16)]


def get_init_inputs():
    return [FEATURES]


def get_alt_inputs():
    return [
        [torch.randn(333, FEATURES, dtype=torch.float16)],
        [torch.randn(2, 7, FEATURES, dtype=torch.float16)],
    ]
