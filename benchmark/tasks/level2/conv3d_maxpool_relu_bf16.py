"""3x3x3 convolution, 2x2x2 max pooling, then ReLU, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv3d", "pooling", "maxpool", "activation"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

N, CIN, COUT, D, H, W = 16, 16, 32, 32, 64, 64


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv3d(cin, cout, 3, padding=1, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(F.max_pool3d(self.conv(x), 2))


def get_inputs():
    return [torch.randn(N, CIN, D, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [
        [torch.randn(1, CIN, 2, 4, 3, dtype=torch.bfloat16)],
        [torch.randn(2, CIN, 7, 10, 15, dtype=torch.bfloat16)],
    ]
