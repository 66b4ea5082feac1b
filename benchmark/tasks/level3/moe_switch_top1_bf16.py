"""Switch-style top-1 mixture of experts in bf16: each token goes to its highest-probability expert, scaled by that probability."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["moe", "routing", "top1", "gemm"], "dtype": "bfloat16", "difficulty": 3}

TOKENS, DIM, HIDDEN, EXPERTS = 16384, 1024, 4096, 16


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int, experts: int):
        super().__init__()
        self.router = nn.Linear(dim, experts, bias=False)  # fp32 router: bf16 logits would tie
        self.w_in = nn.Parameter(torch.randn(experts, dim, hidden, dtype=torch.bfloat16) / dim**0.5)
        self.w_out = nn.Parameter(torch.randn(experts, hidden, dim, dtype=torch.bfloat16) / hidden**0.5)
        nn.init.normal_(self.router.weight, std=2.0 / dim**0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(self.router(x.float()), dim=-1)
        gate, expert_idx = probs.max(dim=-1)
        out = torch.empty_like(x)
        for e in range(self.w_in.shape[0]):
            token = torch.nonzero(expert_idx == e).squeeze(1)
            h = F.relu(x[token] @ self.w_in[e])
            out[token] = (h @ self.w_out[e]) * gate[token, None].to(x.dtype)
        return out


def get_inputs():
    return [torch.randn(TOKENS, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HIDDEN, EXPERTS]


def get_alt_inputs():
    return [[torch.randn(2, DIM, dtype=torch.bfloat16)], [torch.randn(157, DIM, dtype=torch.bfloat16)]]
