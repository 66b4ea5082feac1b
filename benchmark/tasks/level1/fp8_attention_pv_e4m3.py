"""The value product of FP8 attention: o = (p * scale_p) @ (v * scale_v) in bf16, per batch and head,
where the attention probabilities p (batch x heads x seq x seq) are e4m3 with one fp32 scale per
query row (scale_p: batch x heads x seq x 1, the row's largest probability / 448, so a diffuse row
keeps its precision) and the values v (batch x heads x seq x 128) are e4m3 with one fp32 scale per
batch and head (scale_v: batch x heads).

The sum runs over keys, v's rows: FP8 tensor cores on Hopper read both operands K-major, so v enters
transposed (FP8 attention kernels transpose each value tile in shared memory or registers), while
the e4m3 probabilities, one byte each, are most of the bytes read. Both scales factor out of the
sum: o[r] = scale_p[r] * scale_v * sum_j p[r, j] v[j]. The reference dequantizes to fp32
and multiplies there (TF32 off); the speed-of-light floor counts its 2*b*h*s*s*d FLOPs at the FP8
tensor-core rate.

Tolerance: atol = rtol = 1e-2 on outputs of order 1: the e4m3 products are exact in fp32, and an
fp32-accumulating kernel differs from the reference by its summation order and the final bf16
rounding (at most 2^-9 relative). The probabilities are peaked (scores with a spread of 3 before the
softmax), so the output keeps the values' scale; leaving out the scales fails. The reference
computes in fp32 throughout, so the harness's higher-precision run of it agrees bit for bit, and the
tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "attention", "gemm", "quantization"],
    "dtype": "float8_e4m3fn",
    "difficulty": 2,
    "atol": 1e-2,
    "rtol": 1e-2,
    "requires": ["fp8"],
}

BATCH, HEADS, SEQ, HEAD_DIM = 1, 16, 2048, 128
E4M3_MAX = 448.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, p: torch.Tensor, v: torch.Tensor, scale_p: torch.Tensor, scale_v: torch.Tensor
    ) -> torch.Tensor:
        p_wide = p.float() * scale_p.float()
        v_wide = v.float() * scale_v.float()[..., None, None]
        return (p_wide @ v_wide).to(torch.bfloat16)


def _inputs(batch, heads, seq, d):
    probs = torch.softmax(3.0 * torch.randn(batch, heads, seq, seq), dim=-1)
    scale_p = probs.amax(dim=-1, keepdim=True) / E4M3_MAX
    p = (probs / scale_p).clamp(0.0, E4M3_MAX).to(torch.float8_e4m3fn)
    values = torch.randn(batch, heads, seq, d) * torch.exp(0.3 * torch.randn(batch, heads, 1, 1))
    scale_v = values.abs().amax(dim=(2, 3)) / E4M3_MAX
    v = (values / scale_v[..., None, None]).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
    return [p, v, scale_p, scale_v]


def get_inputs():
    return _inputs(BATCH, HEADS, SEQ, HEAD_DIM)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 2, 3, 128), _inputs(2, 3, 77, 64)]
