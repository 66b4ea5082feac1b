"""Two-layer Elman RNN (tanh) via torch.nn.RNN over 256 steps, followed by a linear readout of every step."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["rnn", "elman", "recurrence", "layer_stack"], "dtype": "float32", "difficulty": 2}

BATCH, STEPS, INPUT, HIDDEN, OUTPUT = 64, 256, 256, 512, 128


def init_recurrent(rnn: nn.Module, recurrent_gain: float) -> None:
    """Unit-gain input weights (so deep layers see real signal) and contractive recurrent weights (errors decay)."""
    for name, p in rnn.named_parameters():
        if name.startswith("weight_hh"):
            nn.init.normal_(p, std=recurrent_gain / p.shape[1] ** 0.5)
        elif name.startswith("weight"):
            nn.init.normal_(p, std=1.0 / p.shape[1] ** 0.5)


class Model(nn.Module):
    def __init__(self, input_size: int, hidden: int, output: int):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden, num_layers=2, nonlinearity="tanh", batch_first=True)
        init_recurrent(self.rnn, 0.7)
        self.readout = nn.Linear(hidden, output)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(x)
        return self.readout(out)


def get_inputs():
    return [torch.randn(BATCH, STEPS, INPUT)]


def get_init_inputs():
    return [INPUT, HIDDEN, OUTPUT]


def get_alt_inputs():
    return [[torch.randn(1, 1, INPUT)], [torch.randn(3, 23, INPUT)]]
