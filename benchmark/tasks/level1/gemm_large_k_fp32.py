"""fp32 product with a huge inner dimension (K = 131072) and a small 512 x 512 output."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["gemm"], "dtype": "float32", "difficulty": 3}

M, K, N = 512, 131072, 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N) * K**-0.5]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [
        [torch.randn(33, 20000), torch.randn(20000, 17) * 20000**-0.5],
        [torch.randn(128, 4097), torch.randn(4097, 96) * 4097**-0.5],
    ]
