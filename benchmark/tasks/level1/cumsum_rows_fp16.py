"""Row-wise prefix sum of fp16 data accumulated in fp32 and rounded once to fp16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["scan", "cumsum"], "dtype": "float16", "difficulty": 3}

D0, D1, D2 = 32, 1024, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=-1, dtype=torch.float32).to(torch.float16)


def get_inputs():
    return [torch.randn(D0, D1, D2, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 5, 1001, dtype=torch.float16)], [torch.randn(2, 17, 33, dtype=torch.float16)]]
