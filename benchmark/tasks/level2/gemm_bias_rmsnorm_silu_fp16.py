"""Linear layer, RMSNorm with learned gain, then SiLU, in fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "norm", "rmsnorm", "activation"],
    "dtype": "float16",
    "difficulty": 2,
}

M, D = 8192, 2048


class Model(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.linear = nn.Linear(dim, dim, dtype=torch.float16)
        self.norm = nn.RMSNorm(dim, eps=eps, dtype=torch.float16)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.norm(self.linear(x)))


def get_inputs():
    return [torch.randn(M, D, dtype=torch.float16)]


def get_init_inputs():
    return [D, 1e-5]


def get_alt_inputs():
    return [[torch.randn(2, D, dtype=torch.float16)], [torch.randn(111, D, dtype=torch.float16)]]
