"""Image-classifier head: global average pooling of a 7x7 feature map, flatten, linear to 1000 classes, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["pooling", "avgpool", "gemm", "classifier"],
    "dtype": "float32",
    "difficulty": 1,
}

N, C, H, W, CLASSES = 4096, 512, 7, 7, 1000


class Model(nn.Module):
    def __init__(self, channels: int, classes: int):
        super().__init__()
        self.fc = nn.Linear(channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def get_inputs():
    return [torch.relu(torch.randn(N, C, H, W)) * 3]


def get_init_inputs():
    return [C, CLASSES]


def get_alt_inputs():
    return [[torch.relu(torch.randn(1, C, 7, 7)) * 3], [torch.relu(torch.randn(3, C, 5, 9)) * 3]]
