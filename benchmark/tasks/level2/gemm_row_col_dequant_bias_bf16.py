"""GEMM with a dequantization-style epilogue: per-row and per-column scales, then bias, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "epilogue", "scale", "bias", "broadcast"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

M, K, N = 8192, 4096, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features, bias=False, dtype=torch.bfloat16)
        self.col_scale = nn.Parameter(0.5 + torch.rand(out_features, dtype=torch.bfloat16))
        self.bias = nn.Parameter(torch.randn(out_features, dtype=torch.bfloat16) * 0.2)

    def forward(self, x: torch.Tensor, row_scale: torch.Tensor) -> torch.Tensor:
        return self.proj(x) * row_scale[:, None] * self.col_scale + self.bias


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), 0.25 + torch.rand(M, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [
        [torch.randn(3, K, dtype=torch.bfloat16), 0.25 + torch.rand(3, dtype=torch.bfloat16) * 2],
        [torch.randn(200, K, dtype=torch.bfloat16), 0.25 + torch.rand(200, dtype=torch.bfloat16) * 2],
    ]
