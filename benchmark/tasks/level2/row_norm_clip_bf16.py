"""Clip every row to a maximum L2 norm: x * min(1, max_norm / ||x||), a row reduction feeding an elementwise rescale, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["reduction", "l2norm", "clamp", "elementwise"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

ROWS, D, MAX_NORM = 32768, 4096, 64.0


class Model(nn.Module):
    def __init__(self, max_norm: float):
        super().__init__()
        self.max_norm = max_norm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        norm = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
        return x * torch.clamp(self.max_norm / (norm + 1e-6), max=1.0)


def _inputs(*shape):
    target_norm = torch.rand(*shape[:-1], 1) * 2 * MAX_NORM  # about half the rows get clipped
    return [(torch.randn(*shape) * target_norm / shape[-1] ** 0.5).to(torch.bfloat16)]


def get_inputs():
    return _inputs(ROWS, D)


def get_init_inputs():
    return [MAX_NORM]


def get_alt_inputs():
    return [_inputs(1, D), _inputs(2, 17, 1111)]
