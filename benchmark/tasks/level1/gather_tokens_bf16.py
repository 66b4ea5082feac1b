"""Select 2048 of 4096 token vectors per sequence (torch.gather with an expanded index), in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["indexing", "gather"], "dtype": "bfloat16", "difficulty": 2}

B, T, D, KEEP = 16, 4096, 2048, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, 1, index.unsqueeze(-1).expand(-1, -1, x.shape[-1]))


def get_inputs():
    return [torch.randn(B, T, D, dtype=torch.bfloat16), torch.randint(0, T, (B, KEEP))]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 101, 33, dtype=torch.bfloat16), torch.randint(0, 101, (3, 50))],
        [torch.randn(1, 7, 1001, dtype=torch.bfloat16), torch.randint(0, 7, (1, 20))],
    ]
