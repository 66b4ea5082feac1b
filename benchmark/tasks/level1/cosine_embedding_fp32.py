"""Per-pair cosine embedding loss (margin 0.2, reduction='none') over 1024-dim fp32 embeddings."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "cosine_embedding"], "dtype": "float32", "difficulty": 2}

N, DIM, MARGIN = 65536, 1024, 0.2


class Model(nn.Module):
    def __init__(self, margin: float):
        super().__init__()
        self.margin = margin

    def forward(self, x1: torch.Tensor, x2: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cosine_embedding_loss(x1, x2, y, margin=self.margin, reduction="none")


def make_pairs(n: int, dim: int) -> list[torch.Tensor]:
    """Second embeddings share a random fraction of the first, so similarities spread over [0, 1)."""
    x1 = torch.randn(n, dim)
    x2 = x1 * torch.rand(n, 1) * 2 + torch.randn(n, dim)
    y = torch.where(torch.rand(n) < 0.5, 1.0, -1.0)
    return [x1, x2, y]


def get_inputs():
    return make_pairs(N, DIM)


def get_init_inputs():
    return [MARGIN]


def get_alt_inputs():
    return [make_pairs(3, 1001), make_pairs(1001, 17)]
