"""EfficientNet MBConv in bf16: 1x1 expand, 5x5 depthwise, SiLU, squeeze-and-excitation, 1x1 projection, residual (inference BN)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "inverted_residual", "squeeze_excitation", "depthwise", "batchnorm"], "dtype": "bfloat16", "difficulty": 3}

BATCH, CHANNELS, EXPAND, SIZE, SE_CH = 128, 80, 6, 28, 20


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
    def __init__(self, channels: int, expand: int, se_ch: int):
        super().__init__()
        hidden = channels * expand
        self.expand = nn.Conv2d(channels, hidden, 1, bias=False)
        self.bn1 = FrozenBatchNorm2d(hidden)
        self.depthwise = nn.Conv2d(hidden, hidden, 5, padding=2, groups=hidden, bias=False)
        self.bn2 = FrozenBatchNorm2d(hidden)
        self.se_reduce = nn.Conv2d(hidden, se_ch, 1)
        self.se_expand = nn.Conv2d(se_ch, hidden, 1)
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)
        self.bn3 = FrozenBatchNorm2d(channels)
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.silu(self.bn1(self.expand(x)))
        h = F.silu(self.bn2(self.depthwise(h)))
        gate = torch.sigmoid(self.se_expand(F.silu(self.se_reduce(h.mean(dim=(2, 3), keepdim=True)))))
        return x + self.bn3(self.project(h * gate))


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SIZE, SIZE, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CHANNELS, EXPAND, SE_CH]


def get_alt_inputs():
    return [[torch.randn(1, CHANNELS, 3, 5, dtype=torch.bfloat16)], [torch.randn(2, CHANNELS, 14, 14, dtype=torch.bfloat16)]]
