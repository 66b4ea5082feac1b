"""ResNet basic block in inference mode: conv3x3-BN-ReLU-conv3x3-BN plus identity shortcut, then ReLU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "resnet", "batchnorm", "residual"], "dtype": "float32", "difficulty": 2}

BATCH, CHANNELS, SIZE = 32, 64, 56


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
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = FrozenBatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = FrozenBatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [CHANNELS]


def get_alt_inputs():
    return [[torch.randn(1, CHANNELS, 7, 9)], [torch.randn(3, CHANNELS, 15, 15)]]
