"""Per-triplet margin loss (margin 1, Euclidean distance, reduction='none') over fp32 embeddings."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "triplet_margin"], "dtype": "float32", "difficulty": 2}

N, DIM, MARGIN = 65536, 1024, 1.0


class Model(nn.Module):
    def __init__(self, margin: float):
        super().__init__()
        self.margin = margin

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=2.0, reduction="none")


def get_inputs():
    return [torch.randn(N, DIM), torch.randn(N, DIM), torch.randn(N, DIM)]


def get_init_inputs():
    return [MARGIN]


def get_alt_inputs():
    return [[torch.randn(3, 1001) for _ in range(3)], [torch.randn(1001, 17) for _ in range(3)]]
