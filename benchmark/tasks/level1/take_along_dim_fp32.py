"""torch.take_along_dim picking 2048 rows per batch with an index broadcast over features, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["indexing", "gather", "take_along_dim", "broadcast"],
    "dtype": "float32",
    "difficulty": 2,
}

B, L, D, PICKS = 64, 4096, 256, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.take_along_dim(x, index, dim=1)


def get_inputs():
    return [torch.randn(B, L, D), torch.randint(0, L, (B, PICKS, 1))]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 101, 33), torch.randint(0, 101, (3, 50, 1))],
        [torch.randn(2, 7, 1001), torch.randint(0, 7, (2, 20, 1))],
    ]
