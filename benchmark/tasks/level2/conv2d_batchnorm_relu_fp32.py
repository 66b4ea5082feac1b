"""3x3 convolution with bias, inference-mode BatchNorm, ReLU, in fp32 (no TF32)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "norm", "batchnorm", "activation"],
    "dtype": "float32",
    "difficulty": 1,
}

N, C, H, W = 64, 128, 28, 28


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.3, 0.3)
            self.bn.running_var.uniform_(0.2, 0.6)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bn = self.bn
        y = F.batch_norm(
            self.conv(x), bn.running_mean, bn.running_var, bn.weight, bn.bias, training=False, eps=bn.eps
        )
        return torch.relu(y)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(1, C, 5, 5)], [torch.randn(5, C, 14, 9)]]
