"""index_select of 65536 random rows (with repeats) from an fp32 table."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "index_select"], "dtype": "float32", "difficulty": 2}

ROWS, COLS, PICKS = 65536, 1024, 65536


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.index_select(x, 0, index)


def get_inputs():
    return [torch.randn(ROWS, COLS), torch.randint(0, ROWS, (PICKS,))]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1001, 3), torch.randint(0, 1001, (77,))],
        [torch.randn(33, 4099), torch.randint(0, 33, (100,))],
    ]
