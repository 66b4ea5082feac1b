"""Per-token FP8 quantization: each row of a bf16 activation matrix gets its own scale,
max|row| / 448 (with the amax floored at 1e-4, so an all-zero row does not divide by zero), and is
rounded to e4m3 against it (to nearest even, saturating at +-448); returns (q, scale), the e4m3
payload and the fp32 scales (rows x 1) that dequantize it, as the input side of a row-wise scaled
FP8 GEMM wants them. Token magnitudes spread over several orders, and one row is all zeros.

Tolerance: atol = 0, rtol = 1e-6 for the scales (a row's amax is exact in any order, so only the
division by 448 rounds); the payload is compared to within one e4m3 step (2^-3 relative, 2^-9
absolute among subnormals, benchmark.evaluate.correctness.FP8_STEPS), since x / scale and x * (1 /
scale) differ by an fp32 rounding that moves a value lying on a tie to the neighbouring e4m3 number.
One scale for the whole tensor, or a missing amax floor, fails. The reference computes in fp32
throughout, so the harness's higher-precision run of it agrees bit for bit, and the tolerance is the
whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "quantization", "reduction"],
    "dtype": "float8_e4m3fn",
    "difficulty": 1,
    "atol": 0.0,
    "rtol": 1e-6,
    "requires": ["fp8"],
}

TOKENS, HIDDEN = 16384, 4096
E4M3_MAX = 448.0
AMAX_FLOOR = 1e-4


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.float()
        scale = x.abs().amax(dim=1, keepdim=True).clamp_min(AMAX_FLOOR) / E4M3_MAX
        q = (x / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
        return q, scale


def _inputs(tokens, hidden):
    x = torch.randn(tokens, hidden) * torch.exp(1.5 * torch.randn(tokens, 1))
    x[torch.randint(0, tokens, ())] = 0.0
    return [x.to(torch.bfloat16)]


def get_inputs():
    return _inputs(TOKENS, HIDDEN)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 5), _inputs(77, 1000)]
