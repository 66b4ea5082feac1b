"""Elementwise smooth-L1 loss with beta 0.5 (reduction='none') in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "smooth_l1"], "dtype": "float32", "difficulty": 2}

ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.smooth_l1_loss(pred, target, reduction="none", beta=0.5)


def get_inputs():
    return [torch.randn(ROWS, COLS), torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001), torch.randn(3, 1001)], [torch.randn(17, 4099), torch.randn(17, 4099)]]
