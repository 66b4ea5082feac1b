"""Mamba-style selective scan: input-dependent step size, B and C; state (batch, channels, 16) updated in a Python loop over time."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["ssm", "selective_scan", "scan", "recurrence"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, CHANNELS, STATE, DT_RANK = 8, 256, 768, 16, 48


class Model(nn.Module):
    def __init__(self, channels: int, state: int, dt_rank: int):
        super().__init__()
        self.state, self.dt_rank = state, dt_rank
        self.x_proj = nn.Linear(channels, dt_rank + 2 * state, bias=False)
        self.dt_proj = nn.Linear(dt_rank, channels)
        a = torch.arange(1, state + 1, dtype=torch.float32).repeat(channels, 1)
        self.A_log = nn.Parameter(torch.log(a) + 0.1 * torch.randn(channels, state))
        self.D = nn.Parameter(torch.randn(channels))
        with torch.no_grad():
            self.dt_proj.bias.uniform_(-4.0, -2.0)  # softplus(bias) ~ 0.02-0.13: a realistic step size

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        b, s, c = u.shape  # u: (batch, seq, channels)
        dt_low, B, C = self.x_proj(u).split([self.dt_rank, self.state, self.state], dim=-1)
        delta = F.softplus(self.dt_proj(dt_low))  # (b, s, c)
        A = -torch.exp(self.A_log)  # (c, n)
        decay = torch.exp(delta[..., None] * A)  # (b, s, c, n)
        drive = (delta * u)[..., None] * B[:, :, None, :]  # (b, s, c, n)
        h = torch.zeros(b, c, self.state, device=u.device, dtype=u.dtype)
        ys = []
        for t in range(s):
            h = decay[:, t] * h + drive[:, t]
            ys.append((h * C[:, t, None, :]).sum(dim=-1))
        return torch.stack(ys, dim=1) + u * self.D


def get_inputs():
    return [torch.randn(BATCH, SEQ, CHANNELS)]


def get_init_inputs():
    return [CHANNELS, STATE, DT_RANK]


def get_alt_inputs():
    return [[torch.randn(1, 2, CHANNELS)], [torch.randn(2, 45, CHANNELS)]]
