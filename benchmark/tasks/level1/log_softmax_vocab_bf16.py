"""Log-softmax over a 131072-entry vocabulary for 1024 bf16 rows of logits."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["softmax", "log_softmax", "reduction"], "dtype": "bfloat16", "difficulty": 2}

ROWS, COLS = 1024, 131072


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16) * 3]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001, dtype=torch.bfloat16) * 3],
        [torch.randn(2, 200000, dtype=torch.bfloat16) * 3],
    ]
