"""U-Net decoder step: 2x transposed-conv upsampling, concatenation with the encoder skip, two conv3x3-BN-ReLU layers."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "unet", "conv_transpose", "concat", "batchnorm"], "dtype": "float32", "difficulty": 3}

BATCH, IN_CH, SKIP_CH, OUT_CH, SIZE = 16, 256, 128, 128, 32


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
    def __init__(self, in_ch: int, skip_ch: int, out_ch: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_ch, in_ch // 2, 2, stride=2)
        self.conv1 = nn.Conv2d(in_ch // 2 + skip_ch, out_ch, 3, padding=1, bias=False)
        self.bn1 = FrozenBatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False)
        self.bn2 = FrozenBatchNorm2d(out_ch)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        h = torch.cat((self.up(x), skip), dim=1)
        return F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(h))))))


def _inputs(batch: int, h: int, w: int) -> list:
    return [torch.randn(batch, IN_CH, h, w), torch.randn(batch, SKIP_CH, 2 * h, 2 * w)]


def get_inputs():
    return _inputs(BATCH, SIZE, SIZE)


def get_init_inputs():
    return [IN_CH, SKIP_CH, OUT_CH]


def get_alt_inputs():
    return [_inputs(1, 2, 3), _inputs(2, 9, 7)]
