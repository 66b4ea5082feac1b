"""Small mixture of experts written densely: all four experts run on every token (batched einsum), then top-2 results are gathered.

A kernel can skip the unchosen experts and halve the work; the eager reference does not.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["moe", "routing", "topk", "gather", "batched_gemm"], "dtype": "float32", "difficulty": 3}

TOKENS, DIM, HIDDEN, EXPERTS, TOP_K = 4096, 768, 1536, 4, 2


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int, experts: int, top_k: int):
        super().__init__()
        self.top_k = top_k
        self.router = nn.Linear(dim, experts)
        self.w1 = nn.Parameter(torch.randn(experts, dim, hidden) / dim**0.5)
        self.b1 = nn.Parameter(torch.randn(experts, hidden) * 0.1)
        self.w2 = nn.Parameter(torch.randn(experts, hidden, dim) / hidden**0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weights, chosen = torch.softmax(self.router(x), dim=-1).topk(self.top_k, dim=-1)
        h = F.silu(torch.einsum("td,edh->teh", x, self.w1) + self.b1)
        y = torch.einsum("teh,ehd->ted", h, self.w2)  # (tokens, experts, dim)
        picked = torch.gather(y, 1, chosen[..., None].expand(-1, -1, y.shape[-1]))
        return (picked * weights[..., None]).sum(dim=1)


def get_inputs():
    return [torch.randn(TOKENS, DIM)]


def get_init_inputs():
    return [DIM, HIDDEN, EXPERTS, TOP_K]


def get_alt_inputs():
    return [[torch.randn(1, DIM)], [torch.randn(99, DIM)]]
