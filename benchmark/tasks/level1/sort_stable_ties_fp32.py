"""Stable ascending sort of fp32 rows full of ties: values and the tie-ordered indices."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["sort", "argsort", "stable"], "dtype": "float32", "difficulty": 3}

ROWS, COLS, LEVELS = 8192, 4096, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values, indices = torch.sort(x, dim=-1, stable=True)
        return values, indices


def get_inputs():
    return [torch.randint(0, LEVELS, (ROWS, COLS)).float() * 0.25 - 8]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randint(0, 5, (3, 1001)).float()], [torch.randint(0, LEVELS, (17, 4099)).float()]]
