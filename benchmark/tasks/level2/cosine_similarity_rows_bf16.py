"""Row-wise cosine similarity between two bf16 matrices (three dot products and a division per row)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 2, "tags": ["reduction", "l2norm", "elementwise"], "dtype": "bfloat16", "difficulty": 1}

ROWS, D = 65536, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cosine_similarity(x, y, dim=-1, eps=1e-8)


def _pair(*shape):
    x = torch.randn(*shape, dtype=torch.bfloat16)
    noise_scale = torch.rand(*shape[:-1], 1, dtype=torch.bfloat16) * 3
    return [x, x + torch.randn(*shape, dtype=torch.bfloat16) * noise_scale]


def get_inputs():
    return _pair(ROWS, D)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_pair(1, D), _pair(5, 3, 333)]
