"""SE-ResNet basic block: two conv3x3+BN stages, squeeze-and-excitation channel gating, identity shortcut, ReLU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "squeeze_excitation", "resnet", "batchnorm", "residual"], "dtype": "float32", "difficulty": 3}

BATCH, CHANNELS, SIZE, REDUCTION = 32, 128, 28, 16


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
    def __init__(self, channels: int, reduction: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = FrozenBatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = FrozenBatchNorm2d(channels)
        self.se_reduce = nn.Linear(channels, channels // reduction)
        self.se_expand = nn.Linear(channels // reduction, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        squeeze = out.mean(dim=(2, 3))
        excite = torch.sigmoid(self.se_expand(F.relu(self.se_reduce(squeeze))))
        return F.relu(out * excite[:, :, None, None] + x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [CHANNELS, REDUCTION]


def get_alt_inputs():
    return [[torch.randn(1, CHANNELS, 4, 4)], [torch.randn(3, CHANNELS, 9, 13)]]
