"""L1 norm of each row of an fp32 matrix."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction", "norm"], "dtype": "float32", "difficulty": 2}

ROWS, COLS = 16384, 8192


def spread_rows(rows: int, cols: int) -> torch.Tensor:
    """Rows with their own scale and offset, so per-row results differ by far more than the tolerance."""
    return torch.randn(rows, cols) * (0.5 + 2 * torch.rand(rows, 1)) + torch.randn(rows, 1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.linalg.vector_norm(x, ord=1, dim=-1)


def get_inputs():
    return [spread_rows(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[spread_rows(3, 1001)], [spread_rows(17, 4099)]]
