"""Linear layer whose output is clamped to a narrow band (a hardtanh epilogue) in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm", "epilogue", "bias", "clamp"], "dtype": "float32", "difficulty": 1}

M, K, N = 4096, 4096, 2048


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, lo: float, hi: float):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.lo, self.hi = lo, hi

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(self.linear(x), self.lo, self.hi)


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N, -0.4, 0.4]


def get_alt_inputs():
    return [[torch.randn(1, K)], [torch.randn(129, K)]]
