"""Pre-norm transformer step: h = x + residual, returning both h (the new residual stream) and LayerNorm(h), in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["residual", "norm", "layernorm"], "dtype": "bfloat16", "difficulty": 2}

TOKENS, D = 16384, 4096


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim, dtype=torch.bfloat16)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.2)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = x + residual
        return h, self.norm(h)


def _inputs(*shape):
    return [torch.randn(*shape, dtype=torch.bfloat16), torch.randn(*shape, dtype=torch.bfloat16) * 2]


def get_inputs():
    return _inputs(TOKENS, D)


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [_inputs(1, D), _inputs(3, 45, D)]
