"""Gated diagonal linear recurrence (LRU/RG-LRU style) written as a Python loop over time: h_t = a_t * h_{t-1} + sqrt(1 - a_t^2) * u_t.

The loop launches several tiny kernels per step; a scan kernel does the whole sequence in one pass.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["ssm", "scan", "recurrence", "gating"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, DIM = 16, 256, 1024


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.in_proj = nn.Linear(dim, dim)
        self.gate_proj = nn.Linear(dim, dim)
        self.log_decay = nn.Parameter(torch.rand(dim) * 3.0 - 4.0)  # per-channel base decay
        self.out_proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        u = self.in_proj(x)
        # input-dependent decay in (0, 1): a_t = base ** (8 * sigmoid(gate))
        log_a = -8.0 * torch.sigmoid(self.gate_proj(x)) * F.softplus(-self.log_decay)
        a = torch.exp(log_a)
        scaled = torch.sqrt(1.0 - a * a) * u
        h = torch.zeros_like(x[:, 0])
        states = []
        for t in range(x.shape[1]):
            h = a[:, t] * h + scaled[:, t]
            states.append(h)
        return self.out_proj(torch.stack(states, dim=1))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM]


def get_alt_inputs():
    return [[torch.randn(1, 1, DIM)], [torch.randn(3, 37, DIM)]]
