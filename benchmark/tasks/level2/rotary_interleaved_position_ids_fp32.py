"""Interleaved-pair rotary embedding with explicit per-token position ids gathered from cos/sin tables, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["rotary", "gather", "elementwise"], "dtype": "float32", "difficulty": 2}

B, H, S, D, MAX_LEN = 16, 16, 2048, 64, 8192


class Model(nn.Module):
    def __init__(self, head_dim: int, max_len: int, base: float):
        super().__init__()
        inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
        angles = torch.outer(torch.arange(max_len, dtype=torch.float64), inv_freq)  # [max_len, head_dim / 2]
        self.register_buffer("cos", angles.cos().float())
        self.register_buffer("sin", angles.sin().float())

    def forward(self, x: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
        cos = self.cos[position_ids][:, None]  # x: [batch, heads, seq, head_dim]; ids: [batch, seq]
        sin = self.sin[position_ids][:, None]
        even, odd = x[..., 0::2], x[..., 1::2]
        return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)


def _inputs(b, h, s):
    offsets = torch.randint(0, MAX_LEN - s + 1, (b, 1))
    return [torch.randn(b, h, s, D), offsets + torch.arange(s)[None, :]]


def get_inputs():
    return _inputs(B, H, S)


def get_init_inputs():
    return [D, MAX_LEN, 10000.0]


def get_alt_inputs():
    return [_inputs(1, 1, 1), _inputs(3, 2, 257)]
