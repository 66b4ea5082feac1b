"""Elementwise binary cross-entropy with logits, soft targets and a learned per-class positive weight, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "bce"], "dtype": "float32", "difficulty": 2}

N, CLASSES = 8192, 8192


class Model(nn.Module):
    def __init__(self, classes: int):
        super().__init__()
        self.pos_weight = nn.Parameter(0.5 + torch.rand(classes))

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(
            logits, target, pos_weight=self.pos_weight, reduction="none"
        )


def get_inputs():
    return [torch.randn(N, CLASSES) * 4, torch.rand(N, CLASSES)]


def get_init_inputs():
    return [CLASSES]


def get_alt_inputs():
    return [
        [torch.randn(3, CLASSES) * 4, torch.rand(3, CLASSES)],
        [torch.randn(1001, CLASSES) * 4, torch.rand(1001, CLASSES)],
    ]
