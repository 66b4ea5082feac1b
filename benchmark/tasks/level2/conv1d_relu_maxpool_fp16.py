"""1D convolution (kernel 5), ReLU, then max pooling by 4 along time, in fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv1d", "activation", "pooling", "maxpool"],
    "dtype": "float16",
    "difficulty": 2,
}

N, CIN, COUT, L = 64, 128, 256, 4096


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, 5, padding=2, dtype=torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.max_pool1d(torch.relu(self.conv(x)), 4)


def get_inputs():
    return [torch.randn(N, CIN, L, dtype=torch.float16)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 4, dtype=torch.float16)], [torch.randn(3, CIN, 1003, dtype=torch.float16)]]
