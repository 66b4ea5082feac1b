"""Elementwise binary cross-entropy with logits against hard 0/1 targets, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "bce"], "dtype": "bfloat16", "difficulty": 2}

ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(logits, target, reduction="none")


def get_inputs():
    return [
        torch.randn(ROWS, COLS, dtype=torch.bfloat16) * 4,
        (torch.rand(ROWS, COLS) < 0.3).to(torch.bfloat16),
    ]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001, dtype=torch.bfloat16) * 4, (torch.rand(3, 1001) < 0.3).to(torch.bfloat16)],
        [torch.randn(17, 4099, dtype=torch.bfloat16) * 4, (torch.rand(17, 4099) < 0.3).to(torch.bfloat16)],
    ]
