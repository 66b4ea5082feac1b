"""KL divergence per row between two categorical distributions (kl_div, then a row sum) in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["loss", "kl_div"], "dtype": "float32", "difficulty": 2}

N, CLASSES = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, log_q: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        return F.kl_div(log_q, p, reduction="none").sum(dim=-1)


def make_pair(n: int, classes: int) -> list[torch.Tensor]:
    return [
        torch.log_softmax(torch.randn(n, classes) * 2, dim=-1),
        torch.softmax(torch.randn(n, classes) * 2, dim=-1),
    ]


def get_inputs():
    return make_pair(N, CLASSES)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [make_pair(3, 1001), make_pair(1001, 17)]
