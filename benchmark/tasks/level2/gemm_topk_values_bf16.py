"""Router scores (GEMM against 256 expert embeddings) reduced to each token's 8 largest values, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm", "topk", "reduction"], "dtype": "bfloat16", "difficulty": 2}

M, K, E, TOP = 32768, 4096, 256, 8


class Model(nn.Module):
    def __init__(self, hidden: int, experts: int, top: int):
        super().__init__()
        self.router = nn.Linear(hidden, experts, bias=False, dtype=torch.bfloat16)
        self.top = top

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.topk(self.router(x), self.top, dim=-1, sorted=True).values


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16) * 2]


def get_init_inputs():
    return [K, E, TOP]


def get_alt_inputs():
    return [[torch.randn(1, K, dtype=torch.bfloat16) * 2], [torch.randn(313, K, dtype=torch.bfloat16) * 2]]
