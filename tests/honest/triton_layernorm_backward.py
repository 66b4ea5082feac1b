"""Honest (Triton): layer normalization's backward (dx, dweight, dbias), the row statistics
recomputed. A first kernel takes a group of rows per program: each row's mean and 1/std, then
dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * weight, and the group's partial
sums of dy * xhat and dy; a second kernel adds the groups' partial sums column by column."""

import torch
import triton
import triton.language as tl

ROWS_PER_PROGRAM = 64


@triton.jit
def rows_kernel(x_ptr, dy_ptr, w_ptr, dx_ptr, dw_part_ptr, db_part_ptr, rows, cols, eps,
                ROWS_PER: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    dw_acc = tl.zeros((BLOCK,), dtype=tl.float32)
    db_acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(ROWS_PER):
        row = pid * ROWS_PER + i
        if row < rows:
            base = row.to(tl.int64) * cols
            x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
            dy = tl.load(dy_ptr + base + offs, mask=mask, other=0.0)
            mean = tl.sum(x, axis=0) / cols
            xc = tl.where(mask, x - mean, 0.0)
            rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / cols + eps)
            xhat = xc * rstd
            g = dy * w
            dx = rstd * (g - tl.sum(g, axis=0) / cols - xhat * (tl.sum(g * xhat, axis=0) / cols))
            tl.store(dx_ptr + base + offs, dx, mask=mask)
            dw_acc += dy * xhat
            db_acc += dy
    tl.store(dw_part_ptr + pid * cols + offs, dw_acc, mask=mask)
    tl.store(db_part_ptr + pid * cols + offs, db_acc, mask=mask)


@triton.jit
def columns_kernel(part_ptr, out_ptr, groups, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < cols
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for gi in range(groups):
        acc += tl.load(part_ptr + gi * cols + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc, mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(features))
        self.bias = torch.nn.Parameter(torch.zeros(features))

    def forward(self, x, dy):
        x, dy = x.contiguous(), dy.contiguous()
        rows, cols = x.shape
        groups = triton.cdiv(rows, ROWS_PER_PROGRAM)
        dx = torch.empty_like(x)
        dw_part = torch.empty(groups, cols, dtype=torch.float32, device=x.device)
        db_part = torch.empty_like(dw_part)
        block = triton.next_power_of_2(cols)
        rows_kernel[(groups,)](x, dy, self.weight, dx, dw_part, db_part, rows, cols, 1e-5,
                               ROWS_PER=ROWS_PER_PROGRAM, BLOCK=block, num_warps=8)
        dw = torch.empty(cols, dtype=torch.float32, device=x.device)
        db = torch.empty_like(dw)
        for part, out in ((dw_part, dw), (db_part, db)):
            columns_kernel[(triton.cdiv(cols, 1024),)](part, out, groups, cols, BLOCK=1024)
        return dx, dw, db
