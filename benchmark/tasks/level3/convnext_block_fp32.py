"""ConvNeXt block: 7x7 depthwise conv, channels-last LayerNorm, 4x pointwise MLP with GELU, layer scale, residual."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "convnext", "depthwise", "layernorm", "mlp"], "dtype": "float32", "difficulty": 3}

BATCH, CHANNELS, SIZE = 32, 192, 28


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.dwconv = nn.Conv2d(channels, channels, 7, padding=3, groups=channels)
        self.norm = nn.LayerNorm(channels, eps=1e-6)
        self.fc1 = nn.Linear(channels, 4 * channels)
        self.fc2 = nn.Linear(4 * channels, channels)
        self.gamma = nn.Parameter(torch.rand(channels) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.dwconv(x).permute(0, 2, 3, 1)  # to channels-last
        h = self.fc2(F.gelu(self.fc1(self.norm(h)))) * self.gamma
        return x + h.permute(0, 3, 1, 2)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [CHANNELS]


def get_alt_inputs():
    return [[torch.randn(1, CHANNELS, 5, 5)], [torch.randn(2, CHANNELS, 13, 9)]]
