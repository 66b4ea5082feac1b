"""Layer normalization over 4096 features with a learned (non-trivial) affine, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "layernorm"], "dtype": "float32", "difficulty": 2}

ROWS, FEATURES = 16384, 4096


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(features))
        self.bias = nn.Parameter(0.1 * torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, x.shape[-1:], self.weight, self.bias, eps=1e-5)


def get_inputs():
    return [torch.randn(ROWS, FEATURES) * 2 + 1]


def get_init_inputs():
    return [FEATURES]


def get_alt_inputs():
    return [[torch.randn(3, FEATURES) * 2 + 1], [torch.randn(1001, FEATURES) * 2 + 1]]
