"""Index of the smallest element along the middle dimension of a 3D fp32 tensor (distinct values along that dimension)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "argmin"], "dtype": "float32", "difficulty": 2}


def distinct_rows(rows: int, cols: int) -> torch.Tensor:
    """Rows of pairwise-distinct values in random order, so index outputs never depend on tie-breaking."""
    values = (torch.rand(rows, cols) + 0.25).cumsum(dim=-1) / cols**0.5
    return values.gather(-1, torch.rand(rows, cols).argsort(dim=-1)) - values.mean(dim=-1, keepdim=True)


B, L, D = 512, 1024, 256


def distinct_middle(b: int, length: int, d: int) -> torch.Tensor:
    return distinct_rows(b * d, length).reshape(b, d, length).transpose(1, 2).contiguous()


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmin(x, dim=1)


def get_inputs():
    return [distinct_middle(B, L, D)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[distinct_middle(3, 1001, 7)], [distinct_middle(2, 5, 333)]]
