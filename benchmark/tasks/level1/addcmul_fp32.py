"""torch.addcmul(x, t1, t2, value=0.5): x + 0.5 * t1 * t2 in one pass over three fp32 tensors."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 4096, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, t1: torch.Tensor, t2: torch.Tensor) -> torch.Tensor:
        return torch.addcmul(x, t1, t2, value=0.5)


def get_inputs():
    return [torch.randn(ROWS, COLS), torch.randn(ROWS, COLS), torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001), torch.randn(3, 1001), torch.randn(3, 1001)],
        [torch.randn(17, 4099), torch.randn(17, 4099), torch.randn(17, 4099)],
    ]
