"""LayerNorm with affine parameters followed by GELU, over 4096-wide bf16 rows."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 2, "tags": ["norm", "layernorm", "activation"], "dtype": "bfloat16", "difficulty": 1}

ROWS, D = 32768, 4096


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim, dtype=torch.bfloat16)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 2.0)
            self.norm.bias.normal_(0.0, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.norm(x))


def get_inputs():
    return [torch.randn(ROWS, D, dtype=torch.bfloat16) * 3 + 1]


def get_init_inputs():
    return [D]


def get_alt_inputs():
    return [
        [torch.randn(1, D, dtype=torch.bfloat16) * 3 + 1],
        [torch.randn(4, 5, D, dtype=torch.bfloat16) * 3 + 1],
    ]
