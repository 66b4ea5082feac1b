"""Post-norm residual with a branch scale: LayerNorm(residual + alpha * x), in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["residual", "scale", "norm", "layernorm"],
    "dtype": "float16",
    "difficulty": 1,
}

TOKENS, D = 32768, 2048


class Model(nn.Module):
    def __init__(self, dim: int, alpha: float):
        super().__init__()
        self.norm = nn.LayerNorm(dim, dtype=torch.float16)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.2)
        self.alpha = alpha

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.norm(residual + self.alpha * x)


def _inputs(*shape):
    return [torch.randn(*shape, dtype=torch.float16), torch.randn(*shape, dtype=torch.float16)]


def get_inputs():
    return _inputs(TOKENS, D)


def get_init_inputs():
    return [D, 0.5]


def get_alt_inputs():
    return [_inputs(1, D), _inputs(3, 10, D)]
