"""Bilinear resize of fp32 images to a fixed 300 x 400 grid with align_corners=True (a non-integer scale)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["layout", "upsample"], "dtype": "float32", "difficulty": 2}

N, C, H, W = 8, 64, 150, 200
OUT_H, OUT_W = 300, 400


class Model(nn.Module):
    def __init__(self, out_h: int, out_w: int):
        super().__init__()
        self.size = (out_h, out_w)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, size=self.size, mode="bilinear", align_corners=True)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [OUT_H, OUT_W]


def get_alt_inputs():
    return [[torch.randn(1, 3, 37, 53)], [torch.randn(5, 7, 8, 9)]]
