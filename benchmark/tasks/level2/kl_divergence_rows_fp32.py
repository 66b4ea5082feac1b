"""Row-wise KL(softmax(p) || softmax(q)) between two sets of logits (two log-softmaxes and a weighted sum), in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["reduction", "softmax", "log_softmax", "loss"],
    "dtype": "float32",
    "difficulty": 2,
}

ROWS, D = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, p_logits: torch.Tensor, q_logits: torch.Tensor) -> torch.Tensor:
        log_p = torch.log_softmax(p_logits, dim=-1)
        log_q = torch.log_softmax(q_logits, dim=-1)
        return (log_p.exp() * (log_p - log_q)).sum(dim=-1)


def _inputs(*shape):
    p = torch.randn(*shape) * 2
    return [p, p + torch.randn(*shape) * torch.rand(*shape[:-1], 1) * 2]


def get_inputs():
    return _inputs(ROWS, D)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 4), _inputs(6, 999)]
