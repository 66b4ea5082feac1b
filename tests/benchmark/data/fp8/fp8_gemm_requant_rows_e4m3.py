"""A small FP8 task for the harness's own tests: c = (a * scale_a) @ (b * scale_b)^T from e4m3
operands, then each row of c quantized to e4m3 against its own amax; returns (q, row scales). fp8
tensors cross the boundary both ways: as inputs, and as an output compared to within one step."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["fp8", "gemm", "quantization"],
    "dtype": "float8_e4m3fn",
    "atol": 0.0,
    "rtol": 1e-5,
    "requires": ["fp8"],
}

M, N, K = 64, 48, 128
E4M3_MAX = 448.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, scale_a, scale_b):
        c = (a.to(scale_a.dtype) * scale_a) @ (b.to(scale_b.dtype) * scale_b).t()
        scale = c.abs().amax(dim=1, keepdim=True) / E4M3_MAX
        return (c / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale


def _quantized(rows, cols):
    x = torch.randn(rows, cols) * (0.5 + torch.rand(()))
    scale = x.abs().amax() / E4M3_MAX
    return (x / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale


def get_inputs():
    a, scale_a = _quantized(M, K)
    b, scale_b = _quantized(N, K)
    return [a, b, scale_a, scale_b]


def get_init_inputs():
    return []
