"""A transformer MLP block run in FP8 the way DeepSeek-V3 trains one: the bf16 input is quantized to
e4m3 in 1 x 128 tiles, the gate and up projections are block-scaled FP8 GEMMs against e4m3 weights
with one fp32 scale per 128 x 128 block, h = silu(gate) * up is computed in fp32 and quantized again
in 1 x 128 tiles, and the down projection is a third block-scaled FP8 GEMM; out in bf16. The
activation tiles' scales are powers of two, 2^ceil(log2(amax / 448)) with the tile's amax floored at
1e-4 and amax / 448 taken in fp32 (E8M0 scales, as DeepSeek's later FP8 recipes and the MX formats
use); the weights' block scales are their amax / 448; every cast rounds to nearest even, saturating
at +-448.

A kernel set for it fuses the quantizations into the GEMMs that produce or consume them (the gate
and up products share their input tiles; h reaches memory only as e4m3 and its scales), promotes
each 128-wide slice of the sum to fp32 with its two scales, and keeps the SwiGLU in the up
projection's epilogue. The reference quantizes, dequantizes to fp32 and multiplies there (TF32 off);
the speed-of-light floor counts the three GEMMs' 6*T*D*F FLOPs at the FP8 tensor-core rate.

Tolerance: atol = rtol = 2e-2 on outputs of order 1, and more where the block's own quantization
noise is larger. Power-of-two scales make x / scale exact, so every correct kernel rounds the input
tiles to the same e4m3 values (with amax / 448 scales, x / scale and x * (1 / scale) round many bf16
inputs on different sides of ties). But h comes out of two GEMMs, and any change of summation order
(a tensor core's accumulator, another tiling) moves some of its elements across a rounding tie of
the second quantization: one e4m3 step, 2^-3, on a term of the down projection's sum, up to a few
hundredths on an output, more than 2e-2 allows. The harness measures that noise on every input: its
higher-precision run (fp64, which this reference keeps) disagrees with eager by exactly such flips,
and an element within 8 times eager's worst disagreement of the fp64 result passes
(benchmark.evaluate.correctness). So the check is agreement within the block's quantization noise:
the silu applied to the up projection instead of the gate fails, and so do missing scales, while
skipping the requantization of h (more accurate, not faster) would pass."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 3,
    "tags": ["fp8", "mlp", "gemm", "quantization", "blockwise", "swiglu"],
    "dtype": "float8_e4m3fn",
    "difficulty": 3,
    "atol": 2e-2,
    "rtol": 2e-2,
    "requires": ["fp8"],
}

TOKENS, HIDDEN, FFN = 2048, 2048, 5632
BLOCK = 128
E4M3_MAX = 448.0
AMAX_FLOOR = 1e-4


def _expand(scale: torch.Tensor, rows: int, cols: int, row_block: int) -> torch.Tensor:
    """Per-block scales broadcast to every element of a rows x cols tensor."""
    return scale.repeat_interleave(row_block, 0)[:rows].repeat_interleave(BLOCK, 1)[:, :cols]


def _pow2_scale(amax: torch.Tensor) -> torch.Tensor:
    """2^ceil(log2(amax / 448)): the least power of two that brings amax within e4m3's range."""
    # amax / 448 = mantissa * 2^exponent with mantissa in [0.5, 1): the power is 2^exponent, or half
    # of it where amax / 448 is a power of two itself
    mantissa, exponent = torch.frexp(amax / E4M3_MAX)
    return torch.ldexp(torch.ones_like(amax), exponent - (mantissa == 0.5).to(exponent.dtype))


def _quantize_tiles(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """x (rows x cols, cols a multiple of 128) in e4m3 with one power-of-two scale per 1 x 128 tile."""
    tiles = x.view(x.shape[0], -1, BLOCK)
    scale = _pow2_scale(tiles.abs().amax(dim=2).clamp_min(AMAX_FLOOR))
    q = (tiles / scale[..., None]).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
    return q.view(x.shape), scale


def _quantize_blocks(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """w (rows x cols, both multiples of 128) in e4m3 with one scale per 128 x 128 block."""
    rows, cols = w.shape
    scale = w.view(rows // BLOCK, BLOCK, cols // BLOCK, BLOCK).abs().amax(dim=(1, 3)) / E4M3_MAX
    q = (w / _expand(scale, rows, cols, BLOCK)).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
    return q, scale


def _block_gemm(xq, x_scale, wq, w_scale) -> torch.Tensor:
    """(xq * tile scales) @ (wq * block scales)^T, dequantized into the scales' dtype (fp32; fp64 in
    the harness's higher-precision run)."""
    x = xq.to(x_scale.dtype) * _expand(x_scale, *xq.shape, row_block=1)
    w = wq.to(w_scale.dtype) * _expand(w_scale, *wq.shape, row_block=BLOCK)
    return x @ w.t()


class Model(nn.Module):
    def __init__(self, hidden: int, ffn: int):
        super().__init__()
        for name, (rows, cols) in {"gate": (ffn, hidden), "up": (ffn, hidden), "down": (hidden, ffn)}.items():
            size = torch.exp(0.3 * torch.randn(rows // BLOCK, cols // BLOCK))
            w = torch.randn(rows, cols) * _expand(size, rows, cols, BLOCK) / cols**0.5
            q, scale = _quantize_blocks(w)
            self.register_buffer(f"w_{name}", q)  # e4m3
            self.register_buffer(f"w_{name}_scale", scale)  # fp32, one per 128 x 128 block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xq, x_scale = _quantize_tiles(x.to(self.w_gate_scale.dtype))
        gate = _block_gemm(xq, x_scale, self.w_gate, self.w_gate_scale)
        up = _block_gemm(xq, x_scale, self.w_up, self.w_up_scale)
        hq, h_scale = _quantize_tiles(F.silu(gate) * up)
        return _block_gemm(hq, h_scale, self.w_down, self.w_down_scale).to(torch.bfloat16)


def _inputs(tokens):
    outliers = 1.0 + 19.0 * (torch.rand(HIDDEN) < 0.005)
    return [(torch.randn(tokens, HIDDEN) * outliers).to(torch.bfloat16)]


def get_inputs():
    return _inputs(TOKENS)


def get_init_inputs():
    return [HIDDEN, FFN]


def get_alt_inputs():
    return [_inputs(3), _inputs(77)]
