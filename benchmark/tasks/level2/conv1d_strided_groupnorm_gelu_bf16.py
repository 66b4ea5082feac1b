"""Raw-waveform front end: strided wide-kernel conv1d from one channel, per-channel GroupNorm over time, GELU, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv1d", "strided", "norm", "groupnorm", "activation"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

N, L, C, KSIZE, STRIDE = 8, 160000, 512, 10, 5


class Model(nn.Module):
    def __init__(self, channels: int, kernel_size: int, stride: int):
        super().__init__()
        self.conv = nn.Conv1d(1, channels, kernel_size, stride=stride, bias=False, dtype=torch.bfloat16)
        self.norm = nn.GroupNorm(channels, channels, dtype=torch.bfloat16)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.5)

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.norm(self.conv(wave)))


def get_inputs():
    return [torch.randn(N, 1, L, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, KSIZE, STRIDE]


def get_alt_inputs():
    return [[torch.randn(1, 1, 64, dtype=torch.bfloat16)], [torch.randn(3, 1, 4003, dtype=torch.bfloat16)]]
