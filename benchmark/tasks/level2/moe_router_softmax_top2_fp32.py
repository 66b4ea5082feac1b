"""Mixture-of-experts gate: router GEMM, softmax over experts, top-2 probabilities renormalised to sum to one, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm", "softmax", "topk", "moe"], "dtype": "float32", "difficulty": 2}

M, K, E = 32768, 2048, 64


class Model(nn.Module):
    def __init__(self, hidden: int, experts: int):
        super().__init__()
        self.gate = nn.Linear(hidden, experts, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(self.gate(x), dim=-1)
        top = torch.topk(probs, 2, dim=-1).values
        return top / top.sum(dim=-1, keepdim=True)


def get_inputs():
    return [torch.randn(M, K) * 3]


def get_init_inputs():
    return [K, E]


def get_alt_inputs():
    return [[torch.randn(2, K) * 3], [torch.randn(999, K) * 3]]
