"""Per-sample cross-entropy of fp32 logits over 8192 classes (reduction='none')."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "cross_entropy", "softmax"], "dtype": "float32", "difficulty": 2}

N, CLASSES = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(logits, target, reduction="none")


def get_inputs():
    return [torch.randn(N, CLASSES) * 3, torch.randint(0, CLASSES, (N,))]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001) * 3, torch.randint(0, 1001, (3,))],
        [torch.randn(1001, 17) * 3, torch.randint(0, 17, (1001,))],
    ]
