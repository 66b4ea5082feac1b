"""LSTM with a recurrent projection (proj_size), as in speech encoders, over padded-free 96-step sequences with a LayerNorm head."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["rnn", "lstm", "recurrence", "projection"], "dtype": "float32", "difficulty": 3}

BATCH, STEPS, INPUT, HIDDEN, PROJ = 48, 96, 320, 1024, 256


def init_recurrent(rnn: nn.Module, recurrent_gain: float) -> None:
    """Unit-gain input weights (so deep layers see real signal) and contractive recurrent weights (errors decay)."""
    for name, p in rnn.named_parameters():
        if name.startswith("weight_hh"):
            nn.init.normal_(p, std=recurrent_gain / p.shape[1] ** 0.5)
        elif name.startswith("weight"):
            nn.init.normal_(p, std=1.0 / p.shape[1] ** 0.5)


class Model(nn.Module):
    def __init__(self, input_size: int, hidden: int, proj: int):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden, proj_size=proj, batch_first=True)
        init_recurrent(self.lstm, 0.8)
        self.norm = nn.LayerNorm(proj)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(x)
        return self.norm(out)


def get_inputs():
    return [torch.randn(BATCH, STEPS, INPUT)]


def get_init_inputs():
    return [INPUT, HIDDEN, PROJ]


def get_alt_inputs():
    return [[torch.randn(1, 3, INPUT)], [torch.randn(2, 17, INPUT)]]
