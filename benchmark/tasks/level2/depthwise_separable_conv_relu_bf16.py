"""Depthwise-separable convolution: depthwise 3x3, pointwise 1x1 with bias, ReLU, in bf16 (two convs one kernel could chain)."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "depthwise", "pointwise", "activation"],
    "dtype": "bfloat16",
    "difficulty": 3,
}

N, CIN, COUT, H, W = 64, 128, 256, 112, 112


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.depthwise = nn.Conv2d(cin, cin, 3, padding=1, groups=cin, bias=False, dtype=torch.bfloat16)
        self.pointwise = nn.Conv2d(cin, cout, 1, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.pointwise(self.depthwise(x)) * 2)


def get_inputs():
    return [torch.randn(N, CIN, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [
        [torch.randn(1, CIN, 2, 3, dtype=torch.bfloat16)],
        [torch.randn(3, CIN, 15, 28, dtype=torch.bfloat16)],
    ]
