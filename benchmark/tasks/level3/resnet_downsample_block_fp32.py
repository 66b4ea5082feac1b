"""ResNet basic block that halves resolution and doubles channels, with a strided 1x1 conv + BN projection shortcut."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "resnet", "batchnorm", "residual", "strided"], "dtype": "float32", "difficulty": 2}

BATCH, IN_CH, OUT_CH, SIZE = 32, 64, 128, 56


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
    def __init__(self, in_ch: int, out_ch: int):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride=2, padding=1, bias=False)
        self.bn1 = FrozenBatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False)
        self.bn2 = FrozenBatchNorm2d(out_ch)
        self.shortcut = nn.Conv2d(in_ch, out_ch, 1, stride=2, bias=False)
        self.bn_short = FrozenBatchNorm2d(out_ch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.bn_short(self.shortcut(x)))


def get_inputs():
    return [torch.randn(BATCH, IN_CH, SIZE, SIZE)]


def get_init_inputs():
    return [IN_CH, OUT_CH]


def get_alt_inputs():
    return [[torch.randn(1, IN_CH, 9, 9)], [torch.randn(2, IN_CH, 16, 21)]]
