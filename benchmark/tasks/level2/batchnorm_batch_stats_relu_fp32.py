"""Training-mode BatchNorm (statistics of the current batch, no running buffers) followed by ReLU, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["norm", "batchnorm", "reduction", "activation"],
    "dtype": "float32",
    "difficulty": 2,
}

N, C, H, W = 128, 128, 56, 56


class Model(nn.Module):
    def __init__(self, channels: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(0.5 + torch.rand(channels))
        self.bias = nn.Parameter(torch.randn(channels) * 0.3)
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(F.batch_norm(x, None, None, self.weight, self.bias, training=True, eps=self.eps))


def get_inputs():
    return [torch.randn(N, C, H, W) * 2 + 1]


def get_init_inputs():
    return [C, 1e-5]


def get_alt_inputs():
    return [[torch.randn(2, C, 1, 3) * 2 + 1], [torch.randn(3, C, 17, 10) * 2 + 1]]
