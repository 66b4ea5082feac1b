"""Log-softmax over the middle dimension of a 3D bf16 tensor."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["softmax", "log_softmax", "reduction"], "dtype": "bfloat16", "difficulty": 2}

D0, D1, D2 = 256, 512, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=1)


def get_inputs():
    return [torch.randn(D0, D1, D2, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(3, 1001, 7, dtype=torch.bfloat16) * 2],
        [torch.randn(2, 5, 333, dtype=torch.bfloat16) * 2],
    ]
