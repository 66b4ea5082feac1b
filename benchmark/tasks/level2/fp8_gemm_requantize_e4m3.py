"""FP8 GEMM whose output is quantized again with its own amax: c = (a * scale_a) @ (b * scale_b)^T
in fp32, then scale_c = max|c| / 448 and q = c / scale_c rounded to e4m3 (to nearest even, saturating
at +-448); returns (q, scale_c), the e4m3 product and its fp32 scale, ready for the next FP8 GEMM.
a (M x K) and b (N x K) are e4m3 with per-tensor fp32 scales.

The amax of the whole product must be known before its first element is rounded: a kernel keeps the
fp32 product (or recomputes it) and reduces the amax across the grid, e.g. per tile in the GEMM's
epilogue with an atomic max, then casts in a second pass. The reference dequantizes to fp32 and
multiplies there (TF32 off); the speed-of-light floor counts the GEMM's 2*M*N*K FLOPs at the FP8
tensor-core rate.

Tolerance: atol = 0, rtol = 5e-3 for the scale: the amax is the largest element of a product that an
honest kernel accumulates in another order, or on tensor cores whose accumulator keeps fewer bits
than fp32; the payload is compared to within one e4m3 step (2^-3 relative, 2^-9 absolute among
subnormals, benchmark.evaluate.correctness.FP8_STEPS), which covers the roundings such a scale
moves, and to within 2^-13 of its largest magnitude (448, so 0.055; FP8_NORMWISE): cuBLAS's FP8
GEMM (H100) put near-zero elements several subnormal steps off. A scale 1% off fails, and so does a payload rounded against per-row scales. The reference
computes in fp32 throughout, so the harness's higher-precision run of it agrees bit for bit, and the
tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["fp8", "gemm", "quantization", "reduction"],
    "dtype": "float8_e4m3fn",
    "difficulty": 3,
    "atol": 0.0,
    "rtol": 5e-3,
    "requires": ["fp8"],
}

M, N, K = 4096, 4096, 4096
E4M3_MAX = 448.0


def _quantize(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scale = x.abs().amax() / E4M3_MAX
    return (x / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        a_wide = a.float() * scale_a.float()
        b_wide = b.float() * scale_b.float()
        return _quantize(a_wide @ b_wide.t())


def _inputs(m, n, k):
    a, scale_a = _quantize(torch.randn(m, k) * (0.5 + 1.5 * torch.rand(())))
    b, scale_b = _quantize(torch.randn(n, k) * (0.5 + 1.5 * torch.rand(())) / k**0.5)
    return [a, b, scale_a, scale_b]


def get_inputs():
    return _inputs(M, N, K)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 64, 128), _inputs(77, 208, 384)]
