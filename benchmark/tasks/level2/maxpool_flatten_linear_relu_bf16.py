"""2x2 max pooling, flatten of the channel-major feature map, linear layer, ReLU, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["pooling", "maxpool", "reshape", "gemm", "activation"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

N, C, H, W, OUT = 2048, 64, 32, 32, 1024


class Model(nn.Module):
    def __init__(self, features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(features, out_features, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(torch.flatten(F.max_pool2d(x, 2), 1)))


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C * (H // 2) * (W // 2), OUT]


def get_alt_inputs():
    return [
        [torch.randn(1, C, H, W, dtype=torch.bfloat16)],
        [torch.randn(5, C, H + 1, W, dtype=torch.bfloat16)],
    ]
