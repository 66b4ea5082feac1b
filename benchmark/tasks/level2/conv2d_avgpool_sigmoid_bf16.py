"""3x3 convolution with bias, 2x2 average pooling, then sigmoid, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "pooling", "avgpool", "activation"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

N, CIN, COUT, H, W = 128, 64, 128, 64, 64


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(F.avg_pool2d(self.conv(x), 2) * 4)


def get_inputs():
    return [torch.randn(N, CIN, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [
        [torch.randn(1, CIN, 2, 2, dtype=torch.bfloat16)],
        [torch.randn(2, CIN, 21, 34, dtype=torch.bfloat16)],
    ]
