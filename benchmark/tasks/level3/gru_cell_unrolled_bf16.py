"""Hand-written GRU in bf16 unrolled over 24 steps (reset gate applied to the recurrent candidate, as in cuDNN)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["rnn", "gru", "recurrence", "gemm"], "dtype": "bfloat16", "difficulty": 3}

BATCH, STEPS, INPUT, HIDDEN = 512, 24, 1024, 1024


class Model(nn.Module):
    def __init__(self, input_size: int, hidden: int):
        super().__init__()
        self.w_ih = nn.Linear(input_size, 3 * hidden, dtype=torch.bfloat16)
        self.w_hh = nn.Linear(hidden, 3 * hidden, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
        gates_x = self.w_ih(x)
        h = h0
        outputs = []
        for t in range(x.shape[1]):
            xr, xz, xn = gates_x[:, t].chunk(3, dim=-1)
            hr, hz, hn = self.w_hh(h).chunk(3, dim=-1)
            r = torch.sigmoid(xr + hr)
            z = torch.sigmoid(xz + hz)
            n = torch.tanh(xn + r * hn)
            h = (1 - z) * n + z * h
            outputs.append(h)
        return torch.stack(outputs, dim=1)


def _inputs(batch: int, steps: int) -> list:
    return [torch.randn(batch, steps, INPUT, dtype=torch.bfloat16), torch.randn(batch, HIDDEN, dtype=torch.bfloat16) * 0.5]


def get_inputs():
    return _inputs(BATCH, STEPS)


def get_init_inputs():
    return [INPUT, HIDDEN]


def get_alt_inputs():
    return [_inputs(1, 2), _inputs(3, 9)]
