"""bf16 affine map torch.addmm(bias, x, W) with a 4096 -> 8192 weight held by the model."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm", "bias"], "dtype": "bfloat16", "difficulty": 3}

ROWS, IN_FEATURES, OUT_FEATURES = 16384, 4096, 8192


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        weight = torch.randn(in_features, out_features, dtype=torch.bfloat16) * in_features**-0.5
        self.weight = nn.Parameter(weight)
        self.bias = nn.Parameter(torch.randn(out_features, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.addmm(self.bias, x, self.weight)


def get_inputs():
    return [torch.randn(ROWS, IN_FEATURES, dtype=torch.bfloat16)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]


def get_alt_inputs():
    return [
        [torch.randn(333, IN_FEATURES, dtype=torch.bfloat16)],
        [torch.randn(1, IN_FEATURES, dtype=torch.bfloat16)],
    ]
