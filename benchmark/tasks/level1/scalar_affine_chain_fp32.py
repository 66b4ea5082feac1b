"""A chain of scalar-tensor ops (x * alpha - beta) / gamma: four eager kernels, one pass."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise", "scalar"], "dtype": "float32", "difficulty": 1}

ROWS, COLS = 8192, 8192
ALPHA, BETA, GAMMA = 1.75, 0.3, 2.5


class Model(nn.Module):
    def __init__(self, alpha: float, beta: float, gamma: float):
        super().__init__()
        self.alpha, self.beta, self.gamma = alpha, beta, gamma

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x * self.alpha - self.beta) / self.gamma + 1.0


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return [ALPHA, BETA, GAMMA]


def get_alt_inputs():
    return [[torch.randn(3, 1001)], [torch.randn(17, 4099)]]
