"""Four-layer GELU MLP with a final LayerNorm in bf16: a chain of GEMMs whose epilogues can be fused."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["mlp", "gemm", "activation", "layernorm"], "dtype": "bfloat16", "difficulty": 2, "atol": 5e-2, "rtol": 5e-2}

TOKENS, DIM, HIDDEN = 8192, 1024, 4096


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.Linear(dim, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, dim)]
        )
        self.norm = nn.LayerNorm(dim)
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers[:-1]:
            x = torch.nn.functional.gelu(layer(x))
        return self.norm(self.layers[-1](x))


def get_inputs():
    return [torch.randn(TOKENS, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, HIDDEN]


def get_alt_inputs():
    return [[torch.randn(5, DIM, dtype=torch.bfloat16)], [torch.randn(300, DIM, dtype=torch.bfloat16)]]
