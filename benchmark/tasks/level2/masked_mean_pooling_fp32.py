"""Sentence embedding by masked mean pooling: sum of token vectors where the mask is set, divided by the token count, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["reduction", "mask", "pooling"], "dtype": "float32", "difficulty": 1}

B, S, D = 64, 2048, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        m = mask.unsqueeze(-1)
        return (hidden * m).sum(dim=1) / m.sum(dim=1).clamp_min(1.0)


def _inputs(b, s, d):
    lengths = torch.randint(1, s + 1, (b, 1))
    mask = (torch.arange(s)[None, :] < lengths).to(torch.float32)
    return [torch.randn(b, s, d) + torch.randn(b, 1, d), mask]


def get_inputs():
    return _inputs(B, S, D)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 3, D), _inputs(5, 301, 77)]
