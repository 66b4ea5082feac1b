"""Video-classifier head: average over time and space of a [C, T, H, W] clip feature, flatten, linear to 400 classes, in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["pooling", "avgpool", "gemm", "classifier"],
    "dtype": "float16",
    "difficulty": 1,
}

N, C, T, H, W, CLASSES = 512, 512, 8, 14, 14, 400


class Model(nn.Module):
    def __init__(self, channels: int, classes: int):
        super().__init__()
        self.fc = nn.Linear(channels, classes, dtype=torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.mean(dim=(2, 3, 4)))


def get_inputs():
    return [torch.randn(N, C, T, H, W, dtype=torch.float16) + torch.randn(N, C, 1, 1, 1, dtype=torch.float16)]


def get_init_inputs():
    return [C, CLASSES]


def get_alt_inputs():
    return [
        [torch.randn(1, C, 1, 1, 1, dtype=torch.float16)],
        [torch.randn(3, C, 3, 5, 6, dtype=torch.float16) + torch.randn(3, C, 1, 1, 1, dtype=torch.float16)],
    ]
