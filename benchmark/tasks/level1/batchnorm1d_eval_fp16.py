"""Inference-mode batch normalization of (N, C) fp16 features with running statistics."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["normalization", "batchnorm"], "dtype": "float16", "difficulty": 2}

N, C = 131072, 1024


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(channels, dtype=torch.float16))
        self.bias = nn.Parameter(0.1 * torch.randn(channels, dtype=torch.float16))
        self.register_buffer("running_mean", 0.5 * torch.randn(channels, dtype=torch.float16))
        self.register_buffer("running_var", 0.5 + torch.rand(channels, dtype=torch.float16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(
            x, self.running_mean, self.running_var, self.weight, self.bias, training=False, eps=1e-5
        )


def get_inputs():
    return [torch.randn(N, C, dtype=torch.float16)]


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [[torch.randn(3, C, dtype=torch.float16)], [torch.randn(1001, C, dtype=torch.float16)]]
