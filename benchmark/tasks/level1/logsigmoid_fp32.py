"""Log-sigmoid over fp32 logits, stable for large negative inputs."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["activation", "elementwise"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.logsigmoid(x)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 6]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001) * 6], [torch.randn(17, 4099) * 6]]
