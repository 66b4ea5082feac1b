"""Scale each row into [-1, 1] by its largest magnitude (abs, row max, divide), in fp16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["reduction", "elementwise", "scale"], "dtype": "float16", "difficulty": 1}

ROWS, D = 32768, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / x.abs().amax(dim=-1, keepdim=True).clamp_min(1e-4)


def _inputs(*shape):
    return [
        torch.randn(*shape, dtype=torch.float16)
        * (torch.rand(*shape[:-1], 1, dtype=torch.float16) * 10 + 0.1)
    ]


def get_inputs():
    return _inputs(ROWS, D)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 2), _inputs(9, 1025)]
