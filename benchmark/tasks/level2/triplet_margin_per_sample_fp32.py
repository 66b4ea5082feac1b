"""Per-sample triplet margin loss relu(||a - p|| - ||a - n|| + margin) over embedding triples, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["reduction", "loss", "l2norm", "elementwise"],
    "dtype": "float32",
    "difficulty": 1,
}

N, D = 65536, 512


class Model(nn.Module):
    def __init__(self, margin: float):
        super().__init__()
        self.margin = margin

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, reduction="none")


def _inputs(n, d):
    return [torch.randn(n, d), torch.randn(n, d), torch.randn(n, d)]


def get_inputs():
    return _inputs(N, D)


def get_init_inputs():
    return [1.0]


def get_alt_inputs():
    return [_inputs(1, D), _inputs(100, 37)]
