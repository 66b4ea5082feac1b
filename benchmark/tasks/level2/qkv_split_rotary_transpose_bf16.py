"""Split a fused QKV projection into heads, apply rotary embedding to Q and K, and lay all three out as [B, H, S, D], in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["rotary", "reshape", "transpose", "elementwise"],
    "dtype": "bfloat16",
    "difficulty": 3,
}

B, S, H, D, MAX_LEN = 4, 4096, 32, 128, 8192


class Model(nn.Module):
    def __init__(self, heads: int, head_dim: int, max_len: int, base: float):
        super().__init__()
        self.heads, self.head_dim = heads, head_dim
        inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
        angles = torch.outer(torch.arange(max_len, dtype=torch.float32), inv_freq)
        angles = torch.cat([angles, angles], dim=-1)
        self.register_buffer("cos", angles.cos().to(torch.bfloat16))
        self.register_buffer("sin", angles.sin().to(torch.bfloat16))

    def _rope(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x1, x2 = x.chunk(2, dim=-1)
        return x * cos + torch.cat([-x2, x1], dim=-1) * sin

    def forward(self, qkv: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        b, s, _ = qkv.shape
        q, k, v = qkv.view(b, s, 3, self.heads, self.head_dim).unbind(dim=2)
        cos, sin = self.cos[:s, None, :], self.sin[:s, None, :]
        q, k = self._rope(q, cos, sin), self._rope(k, cos, sin)
        return q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)


def get_inputs():
    return [torch.randn(B, S, 3 * H * D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [H, D, MAX_LEN, 10000.0]


def get_alt_inputs():
    return [
        [torch.randn(1, 2, 3 * H * D, dtype=torch.bfloat16)],
        [torch.randn(2, 99, 3 * H * D, dtype=torch.bfloat16)],
    ]
