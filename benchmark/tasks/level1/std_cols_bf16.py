"""Population standard deviation of each column of a bf16 matrix (offset data)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "std"], "dtype": "bfloat16", "difficulty": 2}

ROWS, COLS = 32768, 8192


def spread_cols(rows: int, cols: int) -> torch.Tensor:
    """Columns with their own scale around an offset of about 4, so per-column statistics differ."""
    return (torch.randn(rows, cols) * (0.5 + 2 * torch.rand(1, cols)) + 4 + torch.randn(1, cols)).to(
        torch.bfloat16
    )


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.std(x, dim=0, correction=0)


def get_inputs():
    return [spread_cols(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[spread_cols(1001, 3)], [spread_cols(7, 4099)]]
