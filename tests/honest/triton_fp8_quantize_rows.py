"""Honest (Triton): per-row FP8 quantization, one program per row: the row's amax in a first pass
over its columns, then x / scale saturated at +-448 and rounded to e4m3 (to nearest even) in a
second; returns the payload and the fp32 scales."""

import torch
import triton
import triton.language as tl


@triton.jit
def quantize_rows_kernel(x_ptr, q_ptr, scale_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row.to(tl.int64) * cols
    amax = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    scale = tl.maximum(tl.max(amax, axis=0), 1e-4) / 448.0
    tl.store(scale_ptr + row, scale)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < cols
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        q = tl.minimum(tl.maximum(x / scale, -448.0), 448.0)
        tl.store(q_ptr + base + offs, q.to(tl.float8e4nv, fp_downcast_rounding="rtne"), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        q = torch.empty(rows, cols, dtype=torch.float8_e4m3fn, device=x.device)
        scale = torch.empty(rows, 1, dtype=torch.float32, device=x.device)
        quantize_rows_kernel[(rows,)](x, q, scale, cols, BLOCK=1024)
        return q, scale
