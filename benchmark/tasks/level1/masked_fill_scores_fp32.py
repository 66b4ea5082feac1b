"""Fill masked attention scores with -10000 using a mask broadcast over heads, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "masked_fill", "broadcast"], "dtype": "float32", "difficulty": 2}

B, H, S = 16, 16, 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return scores.masked_fill(mask, -10000.0)


def get_inputs():
    return [torch.randn(B, H, S, S), torch.rand(B, 1, S, S) < 0.4]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(2, 3, 7, 7), torch.rand(2, 1, 7, 7) < 0.4],
        [torch.randn(1, 5, 33, 100), torch.rand(1, 1, 33, 100) < 0.4],
    ]
