"""Microscaling-style fake quantisation: blocks of 32 share a power-of-two scale from their max magnitude, values round to 4-bit integers and back, in fp32.

Power-of-two scales make every division exact, so the rounding decisions (round half to even) are
fully determined and any correct kernel reproduces the reference bit for bit."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["quantization", "reduction", "elementwise"],
    "dtype": "float32",
    "difficulty": 2,
}

ROWS, COLS, BLOCK = 16384, 8192, 32


class Model(nn.Module):
    def __init__(self, block: int, qmax: int):
        super().__init__()
        self.block, self.qmax = block, qmax

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        blocks = x.reshape(-1, self.block)
        amax = blocks.abs().amax(dim=-1, keepdim=True)
        _, exponent = torch.frexp(amax)  # amax = m * 2**exponent with m in [0.5, 1)
        scale = torch.ldexp(torch.ones_like(amax), exponent - 3)  # amax / scale lies in [4, 8)
        q = torch.clamp(torch.round(blocks / scale), -self.qmax, self.qmax)
        return (q * scale).reshape(x.shape)


def get_inputs():
    return [torch.randn(ROWS, COLS) * torch.rand(ROWS, 1) * 4]


def get_init_inputs():
    return [BLOCK, 7]


def get_alt_inputs():
    return [[torch.randn(1, BLOCK)], [torch.randn(3, 7, 5 * BLOCK) * 10]]
