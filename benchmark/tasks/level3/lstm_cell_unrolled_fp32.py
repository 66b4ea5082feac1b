"""Hand-written LSTM unrolled over 32 steps: one input GEMM for all steps, then a recurrent GEMM and gate math per step."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["rnn", "lstm", "recurrence", "gemm"], "dtype": "float32", "difficulty": 3}

BATCH, STEPS, INPUT, HIDDEN = 256, 32, 512, 1024


class Model(nn.Module):
    def __init__(self, input_size: int, hidden: int):
        super().__init__()
        self.hidden = hidden
        self.w_ih = nn.Linear(input_size, 4 * hidden)
        self.w_hh = nn.Linear(hidden, 4 * hidden, bias=False)

    def forward(self, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor) -> torch.Tensor:
        gates_x = self.w_ih(x)  # (batch, steps, 4 * hidden)
        h, c = h0, c0
        outputs = []
        for t in range(x.shape[1]):
            i, f, g, o = (gates_x[:, t] + self.w_hh(h)).chunk(4, dim=-1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outputs.append(h)
        return torch.stack(outputs, dim=1)


def _inputs(batch: int, steps: int) -> list:
    return [torch.randn(batch, steps, INPUT), torch.randn(batch, HIDDEN) * 0.5, torch.randn(batch, HIDDEN) * 0.5]


def get_inputs():
    return _inputs(BATCH, STEPS)


def get_init_inputs():
    return [INPUT, HIDDEN]


def get_alt_inputs():
    return [_inputs(1, 1), _inputs(5, 7)]
