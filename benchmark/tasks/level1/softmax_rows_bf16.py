"""Row-wise softmax of bf16 attention-like scores."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["softmax", "reduction"], "dtype": "bfloat16", "difficulty": 2}

ROWS, COLS = 16384, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return torch.softmax(scores, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16) * 4]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(5, 777, dtype=torch.bfloat16) * 4]]
