"""Per-sample multi-class hinge loss (multi_margin_loss, margin 1, reduction='none') in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "hinge"], "dtype": "float32", "difficulty": 2}

N, CLASSES = 131072, 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.multi_margin_loss(scores, target, margin=1.0, reduction="none")


def get_inputs():
    return [torch.randn(N, CLASSES), torch.randint(0, CLASSES, (N,))]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001), torch.randint(0, 1001, (3,))],
        [torch.randn(1001, 17), torch.randint(0, 17, (1001,))],
    ]
