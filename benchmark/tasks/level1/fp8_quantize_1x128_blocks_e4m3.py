"""FP8 quantization of activations in 1 x 128 tiles, as DeepSeek-V3's FP8 training does: each run of
128 consecutive values of a row gets its own scale, max|tile| / 448 (the amax floored at 1e-4), and is
rounded to e4m3 against it (to nearest even, saturating at +-448); returns (q, scale), the e4m3
payload and the fp32 scales (rows x hidden/128) that a block-scaled FP8 GEMM reads. A few outlier
channels, 30 times larger than the rest, make some tiles' scales far larger than their neighbours'.
The hidden size is a multiple of 128.

Tolerance: atol = 0, rtol = 1e-6 for the scales (a tile's amax is exact, so only the division by 448
rounds); the payload is compared to within one e4m3 step (2^-3 relative, 2^-9 absolute among
subnormals, benchmark.evaluate.correctness.FP8_STEPS), since x / scale and x * (1 / scale) differ by
an fp32 rounding that moves a value lying on a tie to the neighbouring e4m3 number. One scale per
row (repeated for each of its tiles) fails. The reference computes in fp32 throughout, so the
harness's higher-precision run of it agrees bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "quantization", "reduction", "blockwise"],
    "dtype": "float8_e4m3fn",
    "difficulty": 2,
    "atol": 0.0,
    "rtol": 1e-6,
    "requires": ["fp8"],
}

TOKENS, HIDDEN = 16384, 7168
BLOCK = 128
E4M3_MAX = 448.0
AMAX_FLOOR = 1e-4


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.float()
        tiles = x.view(x.shape[0], -1, BLOCK)
        scale = tiles.abs().amax(dim=2).clamp_min(AMAX_FLOOR) / E4M3_MAX
        q = (tiles / scale[..., None]).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
        return q.view(x.shape), scale


def _inputs(tokens, hidden):
    outliers = 1.0 + 29.0 * (torch.rand(hidden) < 0.004)
    return [(torch.randn(tokens, hidden) * outliers).to(torch.bfloat16)]


def get_inputs():
    return _inputs(TOKENS, HIDDEN)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 128), _inputs(77, 384)]
