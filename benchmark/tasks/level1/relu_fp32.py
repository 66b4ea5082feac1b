"""ReLU over a large fp32 tensor: the simplest bandwidth-bound kernel."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["activation", "elementwise"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001)], [torch.randn(17, 4099)]]
