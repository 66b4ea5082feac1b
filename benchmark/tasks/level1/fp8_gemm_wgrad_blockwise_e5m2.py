"""FP8 weight-gradient GEMM with block-wise scales along the token dimension: dw = DY^T @ X in fp32,
where the upstream gradient dy (M tokens x N, e5m2) and the layer's input x (M x K, e4m3) were each
quantized in 128 x 1 tiles (128 consecutive tokens of one column share an fp32 scale: scale_dy is
M/128 x N, scale_x is M/128 x K), as the backward pass of DeepSeek-V3-style FP8 training does, and
DY = dy * scale_dy, X = x * scale_x tile by tile. The gradient comes out in fp32, for the master
weights' optimizer.

The sum runs over tokens, and the scales change every 128 of them: a kernel multiplies each 128-token
slice on the FP8 tensor cores (both operands enter transposed, M-major, so they are transposed on the
way) and adds the slice's partial sum, scaled per output element by scale_dy[t, n] * scale_x[t, k],
into an fp32 accumulator. M is a multiple of 128. The reference dequantizes to fp32 and multiplies
there (TF32 off); the speed-of-light floor counts its 2*M*N*K FLOPs at the FP8 tensor-core rate.

Tolerance: atol = rtol = 5e-3 on fp32 outputs of order 1: the e5m2 x e4m3 products are exact in fp32
and an honest kernel differs from the reference by summation order, or by a tensor-core accumulator
of about 14 bits within each 128-token slice (relative error below 1e-3); the fp32 tolerance of 1e-4
would reject the hardware the task is about. The tiles' scales spread over e^-3..e^3, so a
neighbouring tile's scale, or one scale per column, fails. The reference computes in fp32
throughout, so the harness's higher-precision run of it agrees bit for bit, and the tolerance is the
whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "gemm", "quantization", "blockwise", "backward"],
    "dtype": "float8_e5m2",
    "difficulty": 3,
    "atol": 5e-3,
    "rtol": 5e-3,
    "requires": ["fp8"],
}

M, N, K = 8192, 4096, 2048  # tokens, output features, input features
BLOCK = 128
FORMAT_MAX = {torch.float8_e4m3fn: 448.0, torch.float8_e5m2: 57344.0}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, dy: torch.Tensor, x: torch.Tensor, scale_dy: torch.Tensor, scale_x: torch.Tensor
    ) -> torch.Tensor:
        dy_wide = dy.float() * scale_dy.float().repeat_interleave(BLOCK, 0)
        x_wide = x.float() * scale_x.float().repeat_interleave(BLOCK, 0)
        return dy_wide.t() @ x_wide


def _quantized_token_tiles(t, dtype):
    """t in `dtype`, one scale per 128 tokens of each column (amax / the format's largest value)."""
    top = FORMAT_MAX[dtype]
    scale = t.view(-1, BLOCK, t.shape[1]).abs().amax(dim=1) / top
    return (t / scale.repeat_interleave(BLOCK, 0)).clamp(-top, top).to(dtype), scale


def _inputs(m, n, k):
    tiles = m // BLOCK
    grads = torch.randn(m, n) * torch.exp(torch.randn(tiles, n)).repeat_interleave(BLOCK, 0)
    acts = torch.randn(m, k) * torch.exp(torch.randn(tiles, k)).repeat_interleave(BLOCK, 0) / m**0.5
    dy, scale_dy = _quantized_token_tiles(grads / 2.7, torch.float8_e5m2)
    x, scale_x = _quantized_token_tiles(acts / 2.7, torch.float8_e4m3fn)
    return [dy, x, scale_dy, scale_x]


def get_inputs():
    return _inputs(M, N, K)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(128, 64, 48), _inputs(384, 208, 77)]
