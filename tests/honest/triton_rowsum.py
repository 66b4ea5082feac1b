"""Honest (Triton): one program per row, blocked fp32 accumulation over the row, then one tree sum."""

import torch
import triton
import triton.language as tl


@triton.jit
def _row_sum(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        cols = x.shape[-1]
        y = torch.empty(x.shape[:-1], dtype=x.dtype, device=x.device)
        _row_sum[(x.numel() // cols,)](x, y, cols, BLOCK=1024)
        return y
