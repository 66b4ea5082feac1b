"""FiLM conditioning: per-sample, per-channel scale and shift of a feature map, plus a skip input, then ReLU, in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["elementwise", "broadcast", "modulation", "residual", "activation"],
    "dtype": "float16",
    "difficulty": 1,
}

N, C, H, W = 64, 256, 56, 56


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, x: torch.Tensor, skip: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor
    ) -> torch.Tensor:
        return torch.relu(x * gamma[:, :, None, None] + beta[:, :, None, None] + skip)


def _inputs(n, h, w):
    return [
        torch.randn(n, C, h, w, dtype=torch.float16),
        torch.randn(n, C, h, w, dtype=torch.float16),
        torch.randn(n, C, dtype=torch.float16) + 1,
        torch.randn(n, C, dtype=torch.float16) * 0.5,
    ]


def get_inputs():
    return _inputs(N, H, W)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 1, 1), _inputs(3, 9, 13)]
