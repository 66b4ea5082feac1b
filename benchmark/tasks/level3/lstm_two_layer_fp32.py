"""Two-layer torch.nn.LSTM over a 64-step sequence with given initial states, returning all top-layer outputs."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["rnn", "lstm", "recurrence", "layer_stack"], "dtype": "float32", "difficulty": 3}

BATCH, STEPS, INPUT, HIDDEN, LAYERS = 64, 64, 512, 1024, 2


def init_recurrent(rnn: nn.Module, recurrent_gain: float) -> None:
    """Unit-gain input weights (so deep layers see real signal) and contractive recurrent weights (errors decay)."""
    for name, p in rnn.named_parameters():
        if name.startswith("weight_hh"):
            nn.init.normal_(p, std=recurrent_gain / p.shape[1] ** 0.5)
        elif name.startswith("weight"):
            nn.init.normal_(p, std=1.0 / p.shape[1] ** 0.5)


class Model(nn.Module):
    def __init__(self, input_size: int, hidden: int, layers: int):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden, num_layers=layers, batch_first=True)
        init_recurrent(self.lstm, 0.8)

    def forward(self, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(x, (h0, c0))
        return out


def _inputs(batch: int, steps: int) -> list:
    return [
        torch.randn(batch, steps, INPUT),
        torch.randn(LAYERS, batch, HIDDEN) * 0.5,
        torch.randn(LAYERS, batch, HIDDEN) * 0.5,
    ]


def get_inputs():
    return _inputs(BATCH, STEPS)


def get_init_inputs():
    return [INPUT, HIDDEN, LAYERS]


def get_alt_inputs():
    return [_inputs(1, 1), _inputs(3, 11)]
