"""Bidirectional single-layer torch.nn.GRU over a 128-step sequence: forward and backward scans concatenated."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["rnn", "gru", "recurrence", "bidirectional"], "dtype": "float32", "difficulty": 3}

BATCH, STEPS, INPUT, HIDDEN = 32, 128, 256, 512


def init_recurrent(rnn: nn.Module, recurrent_gain: float) -> None:
    """Unit-gain input weights (so deep layers see real signal) and contractive recurrent weights (errors decay)."""
    for name, p in rnn.named_parameters():
        if name.startswith("weight_hh"):
            nn.init.normal_(p, std=recurrent_gain / p.shape[1] ** 0.5)
        elif name.startswith("weight"):
            nn.init.normal_(p, std=1.0 / p.shape[1] ** 0.5)


class Model(nn.Module):
    def __init__(self, input_size: int, hidden: int):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden, batch_first=True, bidirectional=True)
        init_recurrent(self.gru, 0.8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.gru(x)
        return out


def get_inputs():
    return [torch.randn(BATCH, STEPS, INPUT)]


def get_init_inputs():
    return [INPUT, HIDDEN]


def get_alt_inputs():
    return [[torch.randn(1, 2, INPUT)], [torch.randn(4, 19, INPUT)]]
