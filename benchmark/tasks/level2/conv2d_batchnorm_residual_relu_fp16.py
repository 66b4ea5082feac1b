"""Residual unit tail: relu(batchnorm(conv3x3(x)) + x) with inference-mode BatchNorm, in fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "norm", "batchnorm", "residual", "activation"],
    "dtype": "float16",
    "difficulty": 2,
}

N, C, H, W = 256, 64, 56, 56


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False, dtype=torch.float16)
        self.bn = nn.BatchNorm2d(channels, dtype=torch.float16)
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
        return torch.relu(y + x)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.float16)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(1, C, 3, 3, dtype=torch.float16)], [torch.randn(2, C, 23, 17, dtype=torch.float16)]]
