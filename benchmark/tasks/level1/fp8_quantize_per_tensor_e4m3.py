"""Per-tensor FP8 quantization with the current amax: scale = max|x| / 448 over the whole bf16 tensor,
q = x / scale rounded to e4m3 (to nearest even, saturating at +-448); returns (q, scale), the e4m3
payload and the fp32 scalar that dequantizes it (q * scale ~ x).

The amax is a reduction over every element that must finish before the first element can be
rounded: a kernel either reads x twice (a reduction, then the cast) or reduces across the grid and
casts behind a grid-wide barrier.

Tolerance: atol = 0, rtol = 1e-6 for the scale (the amax is exact in any order, so only the division
by 448 rounds); the payload is compared to within one e4m3 step (2^-3 relative, 2^-9 absolute among
subnormals, benchmark.evaluate.correctness.FP8_STEPS), since x / scale and x * (1 / scale) differ by
an fp32 rounding that moves a value lying on a tie to the neighbouring e4m3 number. A payload cast
without the scale, or a scale 1% off, fails. The reference computes in fp32 throughout, so the
harness's higher-precision run of it agrees bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "quantization", "reduction"],
    "dtype": "float8_e4m3fn",
    "difficulty": 2,
    "atol": 0.0,
    "rtol": 1e-6,
    "requires": ["fp8"],
}

ROWS, COLS = 8192, 8192
E4M3_MAX = 448.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.float()
        scale = x.abs().amax() / E4M3_MAX
        q = (x / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
        return q, scale


def _inputs(rows, cols):
    return [(torch.randn(rows, cols) * 10.0 ** (2 * torch.rand(()) - 1)).to(torch.bfloat16)]


def get_inputs():
    return _inputs(ROWS, COLS)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 5), _inputs(77, 1000)]
