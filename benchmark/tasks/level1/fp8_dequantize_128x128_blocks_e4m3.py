"""FP8 dequantization of a block-scaled weight: w = q * scale in bf16, where q (rows x cols) is e4m3
and scale holds one fp32 factor per 128 x 128 block (ceil(rows/128) x ceil(cols/128); edge blocks may
be partial), the layout DeepSeek-V3 stores its weights in. What a kernel does to run such a
checkpoint on hardware without FP8 tensor cores, or to hand a weight to a bf16 GEMM: one byte read
and two written per element, the scale read once per block.

Tolerance: atol = 1e-6, rtol = 8e-3, one bf16 step (2^-7 relative): the product of an e4m3 value and
an fp32 scale rounded once to bf16 is what the reference returns, and a kernel that rounds the scale
to bf16 first (then multiplies in bf16) is one step away at most. The block scales are drawn apart
(a factor of e either way is common), so the scale of a neighbouring block fails. The reference
computes in fp32 throughout, so the harness's higher-precision run of it agrees bit for bit, and the
tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "quantization", "blockwise", "elementwise"],
    "dtype": "float8_e4m3fn",
    "difficulty": 1,
    "atol": 1e-6,
    "rtol": 8e-3,
    "requires": ["fp8"],
}

ROWS, COLS = 16384, 7168
BLOCK = 128
E4M3_MAX = 448.0


def _expand(scale: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    return scale.repeat_interleave(BLOCK, 0)[:rows].repeat_interleave(BLOCK, 1)[:, :cols]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return (q.float() * _expand(scale.float(), *q.shape)).to(torch.bfloat16)


def _inputs(rows, cols):
    """A random e4m3 payload spread over the format's range, and per-block scales."""
    q = (torch.randn(rows, cols) * 100).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
    scale = torch.exp(torch.randn(-(-rows // BLOCK), -(-cols // BLOCK))) / E4M3_MAX
    return [q, scale]


def get_inputs():
    return _inputs(ROWS, COLS)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 5), _inputs(200, 300)]
