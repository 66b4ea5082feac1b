"""torch.gather along dim 1: each output row picks 4096 random entries of its input row, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "gather"], "dtype": "float32", "difficulty": 2}

ROWS, COLS, PICKS = 8192, 8192, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, 1, index)


def get_inputs():
    return [torch.randn(ROWS, COLS), torch.randint(0, COLS, (ROWS, PICKS))]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001), torch.randint(0, 1001, (3, 77))],
        [torch.randn(17, 4099), torch.randint(0, 4099, (17, 5000))],
    ]
