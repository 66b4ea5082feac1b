"""Linear layer, GroupNorm over groups of output features, then swish (x * sigmoid(x)), in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "norm", "groupnorm", "activation"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

M, K, N, GROUPS = 8192, 2048, 4096, 32


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, groups: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=torch.bfloat16)
        self.norm = nn.GroupNorm(groups, out_features, dtype=torch.bfloat16)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 2.0)
            self.norm.bias.normal_(0.0, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.linear(x))
        return y * torch.sigmoid(y)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N, GROUPS]


def get_alt_inputs():
    return [[torch.randn(1, K, dtype=torch.bfloat16)], [torch.randn(65, K, dtype=torch.bfloat16)]]
