"""Linear projection followed by LayerNorm over the output features, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm", "norm", "layernorm"], "dtype": "bfloat16", "difficulty": 2}

M, K, N = 8192, 2048, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=torch.bfloat16)
        self.norm = nn.LayerNorm(out_features, dtype=torch.bfloat16)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.linear(x))


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(1, K, dtype=torch.bfloat16)], [torch.randn(271, K, dtype=torch.bfloat16)]]
