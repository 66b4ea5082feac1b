"""Fine-grained MoE with a shared expert: SwiGLU experts, top-4 of 16 routed by softmax, plus an always-on shared SwiGLU expert."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["moe", "routing", "topk", "swiglu", "shared_expert"], "dtype": "bfloat16", "difficulty": 3}

BATCH, SEQ, DIM, EXPERT_HIDDEN, SHARED_HIDDEN, EXPERTS, TOP_K = 4, 1024, 1024, 512, 2048, 16, 4


class SwiGLU(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.gate_up = nn.Linear(dim, 2 * hidden, bias=False, dtype=torch.bfloat16)
        self.down = nn.Linear(hidden, dim, bias=False, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self, dim: int, expert_hidden: int, shared_hidden: int, experts: int, top_k: int):
        super().__init__()
        self.top_k = top_k
        self.router = nn.Linear(dim, experts, bias=False)  # fp32 router: bf16 logits would tie
        self.experts = nn.ModuleList([SwiGLU(dim, expert_hidden) for _ in range(experts)])
        self.shared = SwiGLU(dim, shared_hidden)
        nn.init.normal_(self.router.weight, std=2.0 / dim**0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        flat = x.reshape(-1, d)
        probs = torch.softmax(self.router(flat.float()), dim=-1)
        weights, chosen = probs.topk(self.top_k, dim=-1)
        routed = torch.zeros(flat.shape, dtype=torch.float32, device=x.device)
        for e, expert in enumerate(self.experts):
            token, slot = torch.nonzero(chosen == e, as_tuple=True)
            if token.numel() == 0:
                continue
            routed.index_add_(0, token, expert(flat[token]).float() * weights[token, slot, None])
        out = self.shared(flat) + routed.to(x.dtype)
        return out.view(b, s, d)


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, EXPERT_HIDDEN, SHARED_HIDDEN, EXPERTS, TOP_K]


def get_alt_inputs():
    return [[torch.randn(1, 3, DIM, dtype=torch.bfloat16)], [torch.randn(2, 61, DIM, dtype=torch.bfloat16)]]
