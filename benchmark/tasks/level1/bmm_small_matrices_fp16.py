"""131072 tiny 32 x 32 fp16 matrix products: launch and memory bound, not compute bound."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float16", "difficulty": 3}

B, N = 131072, 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(B, N, N, dtype=torch.float16), torch.randn(B, N, N, dtype=torch.float16)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(1000, 32, 32, dtype=torch.float16), torch.randn(1000, 32, 32, dtype=torch.float16)],
        [torch.randn(77, 17, 9, dtype=torch.float16), torch.randn(77, 9, 23, dtype=torch.float16)],
    ]
