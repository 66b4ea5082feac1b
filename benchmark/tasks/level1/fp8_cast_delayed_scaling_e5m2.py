"""FP8 cast of a gradient with delayed scaling, as Transformer Engine does it: the scale comes from
the amax history of earlier steps (an input here), so the cast needs no reduction before it,
q = saturate(g * scale) rounded to e5m2 (to nearest even; values beyond +-57344, which the stale
scale lets through, are clamped rather than sent to infinity), and the step's own amax, max|g|, is
recorded for the history. Returns (q, amax): the e5m2 payload and the fp32 amax.

Tolerance: atol = 0, rtol = 1e-6 for the amax (a maximum is exact in any order); the payload is
compared to within one e5m2 step (2^-2 relative, 2^-16 absolute among subnormals,
benchmark.evaluate.correctness.FP8_STEPS). About one value in a thousand lies beyond the format's
range after scaling, so a cast that does not saturate (infinities) fails, as does an amax taken
after scaling. The reference computes in fp32 throughout, so the harness's higher-precision run of
it agrees bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "quantization", "reduction"],
    "dtype": "float8_e5m2",
    "difficulty": 1,
    "atol": 0.0,
    "rtol": 1e-6,
    "requires": ["fp8"],
}

ROWS, COLS = 16384, 8192
E5M2_MAX = 57344.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, g: torch.Tensor, scale: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        wide = g.float()
        q = (wide * scale.float()).clamp(-E5M2_MAX, E5M2_MAX).to(torch.float8_e5m2)
        return q, wide.abs().amax()


def _inputs(rows, cols):
    g = torch.randn(rows, cols) * 10.0 ** (-4 * torch.rand(()))  # gradients of 1e-4 to 1
    # the history's amax: about the 99.9th percentile of |g| (3.3 sigma), so ~0.1% saturate
    history_amax = 3.3 * g.std()
    return [g.to(torch.bfloat16), (E5M2_MAX / history_amax).to(torch.float32)]


def get_inputs():
    return _inputs(ROWS, COLS)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 5), _inputs(77, 1000)]
