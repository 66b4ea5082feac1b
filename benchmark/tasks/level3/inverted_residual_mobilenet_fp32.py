"""MobileNetV2 inverted residual: 1x1 expand + BN + ReLU6, 3x3 depthwise + BN + ReLU6, 1x1 linear projection + BN, residual add."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "inverted_residual", "depthwise", "batchnorm", "residual"], "dtype": "float32", "difficulty": 2}

BATCH, CHANNELS, EXPAND, SIZE = 64, 32, 6, 56


class FrozenBatchNorm2d(nn.BatchNorm2d):
    """Batch norm with fixed, non-trivial running statistics: inference semantics whatever train() says."""

    def __init__(self, channels: int):
        super().__init__(channels)
        with torch.no_grad():
            self.weight.uniform_(0.5, 1.5)
            self.bias.normal_(0.0, 0.2)
            self.running_mean.normal_(0.0, 0.2)
            self.running_var.uniform_(0.5, 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias, False, 0.0, self.eps)


class Model(nn.Module):
    def __init__(self, channels: int, expand: int):
        super().__init__()
        hidden = channels * expand
        self.expand = nn.Conv2d(channels, hidden, 1, bias=False)
        self.bn1 = FrozenBatchNorm2d(hidden)
        self.depthwise = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False)
        self.bn2 = FrozenBatchNorm2d(hidden)
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)
        self.bn3 = FrozenBatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu6(self.bn1(self.expand(x)))
        h = F.relu6(self.bn2(self.depthwise(h)))
        return x + self.bn3(self.project(h))


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [CHANNELS, EXPAND]


def get_alt_inputs():
    return [[torch.randn(1, CHANNELS, 3, 3)], [torch.randn(3, CHANNELS, 17, 23)]]
