"""Weight-only 4-bit GEMM: dequantise group-wise (code - zero) * scale weights (groups of 128 along K) and multiply, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["quantization", "gemm", "dequantize", "broadcast"],
    "dtype": "bfloat16",
    "difficulty": 3,
}

M, K, N, GROUP = 4096, 4096, 11008, 128


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, group: int):
        super().__init__()
        self.group = group
        groups = in_features // group
        self.register_buffer("codes", torch.randint(0, 16, (out_features, in_features), dtype=torch.int8))
        self.register_buffer("zeros", torch.randint(6, 10, (out_features, groups, 1), dtype=torch.int8))
        self.scales = nn.Parameter(
            (torch.rand(out_features, groups, 1) * 0.5 + 0.5).to(torch.bfloat16) / (4 * in_features**0.5)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, k = self.codes.shape
        codes = self.codes.view(n, k // self.group, self.group)
        w = ((codes - self.zeros).to(x.dtype) * self.scales).view(n, k)
        return x @ w.t()


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N, GROUP]


def get_alt_inputs():
    return [[torch.randn(1, K, dtype=torch.bfloat16)], [torch.randn(2, 45, K, dtype=torch.bfloat16)]]
