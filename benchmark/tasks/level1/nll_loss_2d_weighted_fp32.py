"""Per-pixel class-weighted negative log-likelihood over segmentation log-probabilities (reduction='none') in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "nll"], "dtype": "float32", "difficulty": 2}

N, CLASSES, H, W = 16, 8, 1024, 1024


class Model(nn.Module):
    def __init__(self, classes: int):
        super().__init__()
        self.class_weight = nn.Parameter(0.5 + torch.rand(classes))

    def forward(self, log_probs: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.nll_loss(log_probs, target, weight=self.class_weight, reduction="none")


def get_inputs():
    return [torch.log_softmax(torch.randn(N, CLASSES, H, W) * 2, dim=1), torch.randint(0, CLASSES, (N, H, W))]


def get_init_inputs():
    return [CLASSES]


def get_alt_inputs():
    return [
        [torch.log_softmax(torch.randn(1, CLASSES, 37, 53), dim=1), torch.randint(0, CLASSES, (1, 37, 53))],
        [torch.log_softmax(torch.randn(3, CLASSES, 5, 9), dim=1), torch.randint(0, CLASSES, (3, 5, 9))],
    ]
