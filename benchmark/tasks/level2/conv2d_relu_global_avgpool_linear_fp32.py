"""Classifier tail: 3x3 convolution, ReLU, global average pooling, flatten, linear, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "activation", "pooling", "avgpool", "gemm"],
    "dtype": "float32",
    "difficulty": 2,
}

N, CIN, CMID, H, W, CLASSES = 64, 64, 256, 32, 32, 1000


class Model(nn.Module):
    def __init__(self, cin: int, cmid: int, classes: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cmid, 3, padding=1)
        self.fc = nn.Linear(cmid, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = torch.relu(self.conv(x)).mean(dim=(2, 3))
        return self.fc(pooled)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, CMID, CLASSES]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 1, 1)], [torch.randn(3, CIN, 15, 22)]]
