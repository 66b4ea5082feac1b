"""Backward of a linear layer (2048 -> 4096 features, with bias) over 4096 tokens, in bf16: the
input gradient dx = dy W, the weight gradient dW = dy^T x and the bias gradient db = sum(dy): two
GEMMs with different transposes and a column reduction, the bulk of every training step."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["backward", "gemm", "linear"], "dtype": "bfloat16", "difficulty": 2}

TOKENS, IN_FEATURES, OUT_FEATURES = 4096, 2048, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        weight = torch.randn(out_features, in_features) / math.sqrt(in_features)
        self.weight = nn.Parameter(weight.to(torch.bfloat16))  # the layer's bias does not enter its backward

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Written out as autograd's backward computes it: the forward GEMM is not needed, and
        # leaving it out keeps the task's matrix work (its speed-of-light floor) to the two GEMMs.
        # Returns (dx, dweight, dbias).
        dx = dy @ self.weight
        dweight = dy.flatten(0, -2).t() @ x.flatten(0, -2)
        return dx, dweight, dy.flatten(0, -2).sum(0)


def _pair(*lead):
    return [
        torch.randn(*lead, IN_FEATURES, dtype=torch.bfloat16),
        torch.randn(*lead, OUT_FEATURES, dtype=torch.bfloat16),
    ]


def get_inputs():
    return _pair(TOKENS)


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]


def get_alt_inputs():
    return [_pair(3), _pair(5, 77)]
