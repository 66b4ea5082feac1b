"""Rotary position embedding (rotate-half convention) applied to queries and keys from cached cos/sin tables, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["rotary", "elementwise", "broadcast"], "dtype": "bfloat16", "difficulty": 2}

B, S, H, D, MAX_LEN = 8, 4096, 32, 128, 8192


class Model(nn.Module):
    def __init__(self, head_dim: int, max_len: int, base: float):
        super().__init__()
        inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
        angles = torch.outer(torch.arange(max_len, dtype=torch.float32), inv_freq)
        angles = torch.cat([angles, angles], dim=-1)  # [max_len, head_dim]
        self.register_buffer("cos", angles.cos().to(torch.bfloat16))
        self.register_buffer("sin", angles.sin().to(torch.bfloat16))

    @staticmethod
    def _rotate_half(x: torch.Tensor) -> torch.Tensor:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat([-x2, x1], dim=-1)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s = q.shape[1]  # q, k: [batch, seq, heads, head_dim]
        cos = self.cos[:s, None, :]
        sin = self.sin[:s, None, :]
        return q * cos + self._rotate_half(q) * sin, k * cos + self._rotate_half(k) * sin


def _inputs(b, s, h):
    return [torch.randn(b, s, h, D, dtype=torch.bfloat16), torch.randn(b, s, h, D, dtype=torch.bfloat16)]


def get_inputs():
    return _inputs(B, S, H)


def get_init_inputs():
    return [D, MAX_LEN, 10000.0]


def get_alt_inputs():
    return [_inputs(1, 3, 1), _inputs(2, 301, 5)]
