"""Eight pre-RMSNorm residual SwiGLU blocks in bf16: a deep, memory-light layer stack dominated by GEMMs."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["mlp", "layer_stack", "rmsnorm", "swiglu"], "dtype": "bfloat16", "difficulty": 2, "atol": 5e-2, "rtol": 5e-2}

TOKENS, DIM, HIDDEN, DEPTH = 4096, 1024, 2816, 8


class Block(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.norm = nn.RMSNorm(dim, eps=1e-6, dtype=torch.bfloat16)
        self.gate_up = nn.Linear(dim, 2 * hidden, bias=False, dtype=torch.bfloat16)
        self.down = nn.Linear(hidden, dim, bias=False, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up(self.norm(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int, depth: int):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, hidden) for _ in range(depth)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


def get_inputs():
    return [torch.randn(TOKENS, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HIDDEN, DEPTH]


def get_alt_inputs():
    return [[torch.randn(1, DIM, dtype=torch.bfloat16)], [torch.randn(333, DIM, dtype=torch.bfloat16)]]
