"""Stack of six residual MLP blocks (LayerNorm, expand, GELU, contract, add): a layer stack of small fusions."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["mlp", "layer_stack", "layernorm", "residual"], "dtype": "float32", "difficulty": 2}

TOKENS, DIM, EXPAND, DEPTH = 4096, 512, 4, 6


class ResidualMLP(nn.Module):
    def __init__(self, dim: int, expand: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, expand * dim)
        self.fc2 = nn.Linear(expand * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x))))


class Model(nn.Module):
    def __init__(self, dim: int, expand: int, depth: int):
        super().__init__()
        self.blocks = nn.ModuleList([ResidualMLP(dim, expand) for _ in range(depth)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


def get_inputs():
    return [torch.randn(TOKENS, DIM)]


def get_init_inputs():
    return [DIM, EXPAND, DEPTH]


def get_alt_inputs():
    return [[torch.randn(3, DIM)], [torch.randn(250, DIM)]]
