"""Post-norm sublayer output: LayerNorm(x + bias + residual) with a learned bias, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["residual", "bias", "norm", "layernorm"],
    "dtype": "float32",
    "difficulty": 1,
}

TOKENS, D = 16384, 4096


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(dim) * 0.5)
        self.norm = nn.LayerNorm(dim)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.2)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.norm(x + self.bias + residual)


def _inputs(*shape):
    return [torch.randn(*shape), torch.randn(*shape) * 2]


def get_inputs():
    return _inputs(TOKENS, D)


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [_inputs(1, D), _inputs(2, 71, D)]
