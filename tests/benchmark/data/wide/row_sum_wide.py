"""Sums of wide fp32 rows: with large-magnitude inputs, most row sums cancel to a small fraction of
their terms, so two honest summation orders differ well beyond 1e-4."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["reduction"], "dtype": "float32", "difficulty": 2}


class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=-1)


def get_inputs():
    return [torch.randn(2048, 4096)]


def get_init_inputs():
    return []
