"""Recommendation-model feature pooling: gather a fixed-size bag of embedding rows per sample and sum them with per-item weights, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 2, "tags": ["embedding", "gather", "reduction"], "dtype": "float32", "difficulty": 2}

B, BAG, ROWS, D = 16384, 32, 100000, 256


class Model(nn.Module):
    def __init__(self, rows: int, dim: int):
        super().__init__()
        self.table = nn.Parameter(torch.randn(rows, dim))

    def forward(self, ids: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        return (F.embedding(ids, self.table) * weights.unsqueeze(-1)).sum(dim=1)


def _inputs(b, bag):
    return [torch.randint(0, ROWS, (b, bag)), torch.rand(b, bag)]


def get_inputs():
    return _inputs(B, BAG)


def get_init_inputs():
    return [ROWS, D]


def get_alt_inputs():
    return [_inputs(1, 1), _inputs(7, 13)]
