"""Backward of the scaled, masked softmax of attention scores over packed sequences, in bf16: each
row of 2048 holds several documents, and a query sees the keys of its own document up to itself.
dx = scale * y * (dy - rowsum(dy * y)) with y = softmax(scale * x, masked) recomputed, zero where
masked, from the raw scores, each position's document id and the upstream gradient. A kernel reads
only the visible part of x and dy (a fraction of each row), and the floor counts only that part.

Tolerance: the gradient's elements are of order scale / (visible keys), so the absolute tolerance
is scaled down with them; the relative tolerance stays bf16's."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "softmax", "mask", "causal", "attention"],
    "dtype": "bfloat16",
    "difficulty": 2,
    "atol": 1e-6,
    "rtol": 2e-2,
}

B, H, S, SCALE, DOCUMENTS = 2, 16, 2048, 0.125, 4


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor, document: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # x, dy: [B, H, S, S]; document: [B, S], the document id of each position (non-decreasing).
        pos = torch.arange(x.shape[-1], device=x.device)
        hidden = (pos[None, :] > pos[:, None]) | (document[:, :, None] != document[:, None, :])
        y = torch.softmax((x * self.scale).masked_fill(hidden[:, None], float("-inf")), dim=-1)
        # The kernel autograd runs for softmax's backward, called directly: the same eager work,
        # and a result that stays differentiable, so the floor can count the bytes it depends on.
        return torch.ops.aten._softmax_backward_data(dy, y, -1, x.dtype) * self.scale


def _inputs(b, h, s):
    document = (torch.rand(b, s) < DOCUMENTS / s).cumsum(-1)  # about DOCUMENTS per row
    x = torch.randn(b, h, s, s, dtype=torch.bfloat16) * 16
    return [x, document, torch.randn(b, h, s, s, dtype=torch.bfloat16)]


def get_inputs():
    return _inputs(B, H, S)


def get_init_inputs():
    return [SCALE]


def get_alt_inputs():
    return [_inputs(1, 1, 7), _inputs(2, 3, 301)]
