"""WaveNet-style stack: dilated causal conv1d layers with tanh*sigmoid gating, residual and summed skip outputs."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "conv1d", "dilated", "causal", "gated", "layer_stack"], "dtype": "float32", "difficulty": 3}

BATCH, CHANNELS, SEQ, DILATIONS = 16, 128, 8192, (1, 2, 4, 8, 16, 32)


class GatedLayer(nn.Module):
    def __init__(self, channels: int, dilation: int):
        super().__init__()
        self.dilation = dilation
        self.conv = nn.Conv1d(channels, 2 * channels, 2, dilation=dilation)
        self.res = nn.Conv1d(channels, channels, 1)
        self.skip = nn.Conv1d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.conv(F.pad(x, (self.dilation, 0)))  # left padding keeps the conv causal
        filt, gate = h.chunk(2, dim=1)
        z = torch.tanh(filt) * torch.sigmoid(gate)
        return x + self.res(z), self.skip(z)


class Model(nn.Module):
    def __init__(self, channels: int, dilations: tuple[int, ...]):
        super().__init__()
        self.layers = nn.ModuleList([GatedLayer(channels, d) for d in dilations])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = torch.zeros_like(x)
        for layer in self.layers:
            x, s = layer(x)
            skips = skips + s
        return F.relu(skips)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SEQ)]


def get_init_inputs():
    return [CHANNELS, DILATIONS]


def get_alt_inputs():
    return [[torch.randn(1, CHANNELS, 3)], [torch.randn(2, CHANNELS, 333)]]
