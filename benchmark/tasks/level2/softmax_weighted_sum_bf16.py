"""Softmax over each row of scores followed by the probability-weighted sum of a value row (attention pooling to a scalar), in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["reduction", "softmax", "elementwise"], "dtype": "bfloat16", "difficulty": 2}

ROWS, D = 32768, 4096


class Model(nn.Module):
    def __init__(self, temperature: float):
        super().__init__()
        self.temperature = temperature

    def forward(self, scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(scores / self.temperature, dim=-1)
        return (probs * values).sum(dim=-1)


def _inputs(*shape):
    return [torch.randn(*shape, dtype=torch.bfloat16) * 2, torch.randn(*shape, dtype=torch.bfloat16) * 3]


def get_inputs():
    return _inputs(ROWS, D)


def get_init_inputs():
    return [0.5]


def get_alt_inputs():
    return [_inputs(1, 5), _inputs(7, 1000)]
