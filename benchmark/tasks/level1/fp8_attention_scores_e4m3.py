"""Attention scores from FP8 queries and keys: s = (q * scale_q) (k * scale_k)^T / sqrt(d) in fp32,
per batch and head, where q and k (batch x heads x seq x 128) are e4m3 with one fp32 scale per batch
and head (scale_q, scale_k: batch x heads), as an FP8 attention kernel receives them.

A batched GEMM whose sum runs over the head dimension only (128): the e4m3 products accumulate in
fp32, and the scores, written in fp32 for a softmax to read, are most of the bytes moved. The
reference dequantizes to fp32 and multiplies there (TF32 off); the speed-of-light floor counts its
2*b*h*s*s*d FLOPs at the FP8 tensor-core rate.

Tolerance: atol = rtol = 5e-3 on scores of order 1: the e4m3 products are exact in fp32 and a kernel
that accumulates in fp32 differs from the reference by its summation order (about 1e-6); the
tolerance also admits an FP8 tensor-core accumulator, which keeps fewer bits than fp32 (about 14 on
Hopper, by DeepSeek-V3's measurement) over the 128 products. A head's scale applied to another head,
or a missing 1/sqrt(d), fails. The reference computes in fp32 throughout, so the harness's
higher-precision run of it agrees bit for bit, and the tolerance is the whole rule."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "attention", "gemm", "quantization"],
    "dtype": "float8_e4m3fn",
    "difficulty": 2,
    "atol": 5e-3,
    "rtol": 5e-3,
    "requires": ["fp8"],
}

BATCH, HEADS, SEQ, HEAD_DIM = 1, 16, 2048, 128
E4M3_MAX = 448.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, scale_q: torch.Tensor, scale_k: torch.Tensor
    ) -> torch.Tensor:
        q_wide = q.float() * scale_q.float()[..., None, None]
        k_wide = k.float() * scale_k.float()[..., None, None]
        return (q_wide @ k_wide.transpose(-2, -1)) * q.shape[-1] ** -0.5


def _quantized_heads(x):
    """x (batch x heads x seq x d) in e4m3 with one scale per batch and head."""
    scale = x.abs().amax(dim=(2, 3)) / E4M3_MAX
    return (x / scale[..., None, None]).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale


def _inputs(batch, heads, seq, d):
    head_size = torch.exp(0.3 * torch.randn(batch, heads, 1, 1))
    q, scale_q = _quantized_heads(torch.randn(batch, heads, seq, d) * head_size)
    k, scale_k = _quantized_heads(torch.randn(batch, heads, seq, d) / head_size)
    return [q, k, scale_q, scale_k]


def get_inputs():
    return _inputs(BATCH, HEADS, SEQ, HEAD_DIM)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 2, 3, 128), _inputs(2, 3, 77, 64)]
