"""Expert-choice MoE routing: each expert picks its top-capacity tokens by router score, so loads are balanced by construction."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["moe", "routing", "expert_choice", "topk", "scatter"], "dtype": "float32", "difficulty": 3}

TOKENS, DIM, HIDDEN, EXPERTS, CAPACITY_FACTOR = 8192, 512, 2048, 8, 2


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int, experts: int, capacity_factor: int):
        super().__init__()
        self.experts, self.capacity_factor = experts, capacity_factor
        self.router = nn.Linear(dim, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, dim, hidden) / dim**0.5)
        self.w2 = nn.Parameter(torch.randn(experts, hidden, dim) / hidden**0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t, d = x.shape
        capacity = max(1, t * self.capacity_factor // self.experts)
        scores = torch.softmax(self.router(x), dim=-1)  # (t, e)
        gate, token = scores.t().topk(capacity, dim=-1)  # (e, capacity): each expert's favourite tokens
        h = F.gelu(torch.bmm(x[token], self.w1))  # (e, capacity, hidden)
        y = torch.bmm(h, self.w2) * gate[..., None]
        out = torch.zeros_like(x)
        for e in range(self.experts):  # a token may be chosen by several experts: add expert by expert
            out.index_add_(0, token[e], y[e])
        return out


def get_inputs():
    return [torch.randn(TOKENS, DIM)]


def get_init_inputs():
    return [DIM, HIDDEN, EXPERTS, CAPACITY_FACTOR]


def get_alt_inputs():
    return [[torch.randn(5, DIM)], [torch.randn(300, DIM)]]
