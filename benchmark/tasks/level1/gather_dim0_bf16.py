"""torch.gather along dim 0 of a bf16 matrix: every output element reads a random row of its column."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "gather"], "dtype": "bfloat16", "difficulty": 2}

ROWS, COLS, OUT_ROWS = 32768, 2048, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, 0, index)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16), torch.randint(0, ROWS, (OUT_ROWS, COLS))]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1001, 3, dtype=torch.bfloat16), torch.randint(0, 1001, (77, 3))],
        [torch.randn(33, 257, dtype=torch.bfloat16), torch.randint(0, 33, (100, 257))],
    ]
