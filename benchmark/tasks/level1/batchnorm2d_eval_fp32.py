"""Inference-mode batch normalization with stored running statistics, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "batchnorm"], "dtype": "float32", "difficulty": 2}

N, C, H, W = 32, 128, 112, 112


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(channels))
        self.bias = nn.Parameter(0.1 * torch.randn(channels))
        self.register_buffer("running_mean", 0.5 * torch.randn(channels))
        self.register_buffer("running_var", 0.5 + torch.rand(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(
            x, self.running_mean, self.running_var, self.weight, self.bias, training=False, eps=1e-5
        )


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(1, C, 37, 53)], [torch.randn(5, C, 8, 9)]]
