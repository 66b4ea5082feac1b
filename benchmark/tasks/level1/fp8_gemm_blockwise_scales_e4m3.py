"""FP8 GEMM with block-wise scales, as in DeepSeek-V3's FP8 training: out = A @ B^T in bf16, where
the activations a (M x K, e4m3) carry one fp32 scale per 1 x 128 tile (scale_a, M x K/128) and the
weights b (N x K, e4m3) one per 128 x 128 block (scale_b, ceil(N/128) x K/128); each scale is the
tile's amax / 448, and A = a * scale_a, B = b * scale_b tile by tile.

The scales change every 128 elements of K, so a kernel cannot apply them once in the epilogue: it
multiplies the e4m3 products of each 128-wide slice of K on the tensor cores, then adds that partial
sum, scaled by scale_a[m, k/128] * scale_b[n/128, k/128], into an fp32 accumulator. K is a multiple
of 128; M and N need not be (the last weight block of N is partial). The reference dequantizes to
fp32 and multiplies there (TF32 off); the speed-of-light floor counts its 2*M*N*K FLOPs at the FP8
tensor-core rate.

Tolerance: atol = rtol = 1e-2 on outputs of order 1: the per-slice partial sums are promoted to fp32
every 128 products, so an honest kernel differs from the reference by summation order and the final
bf16 rounding (at most 2^-9 relative). The tiles' scales spread over e^-4..e^4, so the scale of a
neighbouring tile, or one scale per row, fails. The reference computes in fp32 throughout, so the
harness's higher-precision run of it agrees bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "gemm", "quantization", "blockwise"],
    "dtype": "float8_e4m3fn",
    "difficulty": 3,
    "atol": 1e-2,
    "rtol": 1e-2,
    "requires": ["fp8"],
}

M, N, K = 4096, 2048, 7168
BLOCK = 128
E4M3_MAX = 448.0


def _expand(scale: torch.Tensor, rows: int, cols: int, row_block: int) -> torch.Tensor:
    """Per-block scales broadcast to every element of a rows x cols tensor."""
    return scale.repeat_interleave(row_block, 0)[:rows].repeat_interleave(BLOCK, 1)[:, :cols]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor
    ) -> torch.Tensor:
        a_wide = a.float() * _expand(scale_a.float(), *a.shape, row_block=1)
        b_wide = b.float() * _expand(scale_b.float(), *b.shape, row_block=BLOCK)
        return (a_wide @ b_wide.t()).to(torch.bfloat16)


def _quantized_blocks(x, row_block):
    """x in e4m3 with one scale per row_block x 128 block (amax / 448), and the scales."""
    rows, cols = x.shape
    padded = torch.zeros(-(-rows // row_block) * row_block, cols)
    padded[:rows] = x
    blocks = padded.view(-1, row_block, cols // BLOCK, BLOCK)
    scale = blocks.abs().amax(dim=(1, 3)) / E4M3_MAX
    q = (x / _expand(scale, rows, cols, row_block)).clamp(-E4M3_MAX, E4M3_MAX)
    return q.to(torch.float8_e4m3fn), scale


def _inputs(m, n, k):
    kb = k // BLOCK
    tokens = torch.randn(m, k) * _expand(torch.exp(torch.randn(m, kb)), m, k, 1)
    weights = torch.randn(n, k) * _expand(torch.exp(0.5 * torch.randn(-(-n // BLOCK), kb)), n, k, BLOCK)
    a, scale_a = _quantized_blocks(tokens, 1)
    b, scale_b = _quantized_blocks(weights / k**0.5, BLOCK)
    return [a, b, scale_a, scale_b]


def get_inputs():
    return _inputs(M, N, K)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 64, 128), _inputs(77, 200, 384)]
