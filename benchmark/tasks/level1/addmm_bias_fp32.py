"""fp32 affine map torch.addmm(bias, x, W) with the weight and bias held by the model."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm", "bias"], "dtype": "float32", "difficulty": 3}

ROWS, IN_FEATURES, OUT_FEATURES = 4096, 4096, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features) * in_features**-0.5)
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.addmm(self.bias, x, self.weight)


def get_inputs():
    return [torch.randn(ROWS, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]


def get_alt_inputs():
    return [[torch.randn(333, IN_FEATURES)], [torch.randn(1, IN_FEATURES)]]
