"""FP8 quantization of a weight matrix in 128 x 128 blocks, as DeepSeek-V3 stores its weights: each
block gets one scale, max|block| / 448, and is rounded to e4m3 against it (to nearest even,
saturating at +-448); returns (q, scale), the e4m3 payload and the fp32 scales
(ceil(rows/128) x ceil(cols/128)) a block-scaled FP8 GEMM reads. Edge blocks may be partial. Each
block's magnitude is drawn apart, so neighbouring scales differ by up to e^2.

A block's amax reduces over 128 rows, so a kernel reduces across the threads (or passes) that read
the block's rows before any of its values can be rounded.

Tolerance: atol = 0, rtol = 1e-6 for the scales (a block's amax is exact, so only the division by
448 rounds); the payload is compared to within one e4m3 step (2^-3 relative, 2^-9 absolute among
subnormals, benchmark.evaluate.correctness.FP8_STEPS), since x / scale and x * (1 / scale) differ by
an fp32 rounding that moves a value lying on a tie to the neighbouring e4m3 number. A block's amax
taken over its first row only fails. The reference computes in fp32 throughout, so the harness's
higher-precision run of it agrees bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "quantization", "reduction", "blockwise"],
    "dtype": "float8_e4m3fn",
    "difficulty": 2,
    "atol": 0.0,
    "rtol": 1e-6,
    "requires": ["fp8"],
}

ROWS, COLS = 8192, 7168  # output features, input features
BLOCK = 128
E4M3_MAX = 448.0


def _expand(scale: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    return scale.repeat_interleave(BLOCK, 0)[:rows].repeat_interleave(BLOCK, 1)[:, :cols]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        w = w.float()
        rows, cols = w.shape
        padded = F.pad(w, (0, -cols % BLOCK, 0, -rows % BLOCK))  # zeros leave every amax as it is
        blocks = padded.view(padded.shape[0] // BLOCK, BLOCK, padded.shape[1] // BLOCK, BLOCK)
        scale = blocks.abs().amax(dim=(1, 3)) / E4M3_MAX
        q = (w / _expand(scale, rows, cols)).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
        return q, scale


def _inputs(rows, cols):
    magnitude = torch.exp(0.5 * torch.randn(-(-rows // BLOCK), -(-cols // BLOCK)))
    return [(torch.randn(rows, cols) * _expand(magnitude, rows, cols) / cols**0.5).to(torch.bfloat16)]


def get_inputs():
    return _inputs(ROWS, COLS)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 5), _inputs(200, 300)]
