"""ResNet bottleneck block in bf16 inference mode: 1x1 reduce, 3x3, 1x1 expand (each with BN), identity shortcut, ReLU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "resnet", "bottleneck", "batchnorm", "residual"], "dtype": "bfloat16", "difficulty": 2}

BATCH, CHANNELS, MID, SIZE = 64, 256, 64, 56


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
    def __init__(self, channels: int, mid: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, mid, 1, bias=False)
        self.bn1 = FrozenBatchNorm2d(mid)
        self.conv2 = nn.Conv2d(mid, mid, 3, padding=1, bias=False)
        self.bn2 = FrozenBatchNorm2d(mid)
        self.conv3 = nn.Conv2d(mid, channels, 1, bias=False)
        self.bn3 = FrozenBatchNorm2d(channels)
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        return F.relu(self.bn3(self.conv3(out)) + x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SIZE, SIZE, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CHANNELS, MID]


def get_alt_inputs():
    return [[torch.randn(1, CHANNELS, 5, 5, dtype=torch.bfloat16)], [torch.randn(2, CHANNELS, 13, 17, dtype=torch.bfloat16)]]
