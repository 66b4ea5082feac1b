"""Causal attention from FP8 inputs: o = softmax(mask(q k^T / sqrt(d))) v in bf16, per batch and head,
where q, k and v (batch x heads x seq x 128) are e4m3 with one fp32 scale each per batch and head
(scale_q, scale_k, scale_v: batch x heads), the forward of an FP8 attention kernel.

Both products run on the FP8 tensor cores with fp32 accumulation; the softmax, in fp32 in between,
sees the scores scaled by scale_q * scale_k / sqrt(d), and its probabilities go into the second
product either in bf16 or, as FP8 attention kernels do, quantized to e4m3 (the values v enter
transposed, since FP8 tensor cores read both operands K-major). The reference dequantizes to fp32,
materializes the scores and keeps the probabilities in fp32; the speed-of-light floor counts both
products' FLOPs at the FP8 tensor-core rate (4*b*h*s*s*d, the masked half included: torch's
counter counts the dense products).

Tolerance: atol = rtol = 3e-2 on outputs of order 1 (the attention is peaked: scores spread by about
2.5 before the mask): probabilities rounded to e4m3 (up to 2^-4 relative each) before the product
with v, as a kernel with an online softmax rounds them (each row against its running maximum), were
measured at two thirds of the bound at most (with the harness's allowance of 8 x eager's own error),
and bf16 probabilities at a tenth. A missing scale, a missing
mask, or a mask shifted by one fails."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["fp8", "attention", "softmax", "causal", "quantization"],
    "dtype": "float8_e4m3fn",
    "difficulty": 3,
    "atol": 3e-2,
    "rtol": 3e-2,
    "requires": ["fp8"],
}

BATCH, HEADS, SEQ, HEAD_DIM = 2, 16, 2048, 128
E4M3_MAX = 448.0


def _dequantize(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return x.to(scale.dtype) * scale[..., None, None]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        scale_q: torch.Tensor,
        scale_k: torch.Tensor,
        scale_v: torch.Tensor,
    ) -> torch.Tensor:
        scores = _dequantize(q, scale_q) @ _dequantize(k, scale_k).transpose(-2, -1) * q.shape[-1] ** -0.5
        seq = q.shape[-2]
        future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
        probs = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return (probs @ _dequantize(v, scale_v)).to(torch.bfloat16)


def _quantized_heads(x):
    """x in e4m3 with one scale per batch and head (amax / 448)."""
    scale = x.abs().amax(dim=(2, 3)) / E4M3_MAX
    return (x / scale[..., None, None]).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale


def _inputs(batch, heads, seq, d):
    size = torch.exp(0.2 * torch.randn(batch, heads, 1, 1))
    q, scale_q = _quantized_heads(torch.randn(batch, heads, seq, d) * 1.6 * size)
    k, scale_k = _quantized_heads(torch.randn(batch, heads, seq, d) * 1.6 / size)
    values = torch.randn(batch, heads, seq, d) * torch.exp(0.3 * torch.randn(batch, heads, 1, 1))
    v, scale_v = _quantized_heads(values)
    return [q, k, v, scale_q, scale_k, scale_v]


def get_inputs():
    return _inputs(BATCH, HEADS, SEQ, HEAD_DIM)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 2, 3, 128), _inputs(2, 3, 77, 64)]
