"""A ResNet stage in bf16: three basic blocks at 128 channels on 28x28 maps, inference-mode batch norm."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "resnet", "layer_stack", "batchnorm", "residual"], "dtype": "bfloat16", "difficulty": 3}

BATCH, CHANNELS, SIZE, DEPTH = 64, 128, 28, 3


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


class BasicBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = FrozenBatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = FrozenBatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))) + x)


class Model(nn.Module):
    def __init__(self, channels: int, depth: int):
        super().__init__()
        self.blocks = nn.Sequential(*[BasicBlock(channels) for _ in range(depth)])
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SIZE, SIZE, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CHANNELS, DEPTH]


def get_alt_inputs():
    return [[torch.randn(1, CHANNELS, 6, 6, dtype=torch.bfloat16)], [torch.randn(2, CHANNELS, 11, 14, dtype=torch.bfloat16)]]
