"""Row-wise log-softmax of fp32 scores."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["softmax", "log_softmax", "reduction"], "dtype": "float32", "difficulty": 2}

ROWS, COLS = 16384, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 4]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001) * 4], [torch.randn(17, 4099) * 4]]
