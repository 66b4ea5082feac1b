"""Diffusion U-Net residual block in bf16: GroupNorm-SiLU-conv, timestep-embedding bias, GroupNorm-SiLU-conv, 1x1 skip projection."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "groupnorm", "residual", "diffusion", "timestep_embedding"], "dtype": "bfloat16", "difficulty": 3}

BATCH, IN_CH, OUT_CH, EMB_DIM, SIZE, GROUPS = 32, 128, 256, 512, 64, 32


class Model(nn.Module):
    def __init__(self, in_ch: int, out_ch: int, emb_dim: int, groups: int):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, in_ch)
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, padding=1)
        self.emb_proj = nn.Linear(emb_dim, out_ch)
        self.norm2 = nn.GroupNorm(groups, out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1)
        self.skip = nn.Conv2d(in_ch, out_ch, 1)
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor, emb: torch.Tensor) -> torch.Tensor:
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.emb_proj(F.silu(emb))[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return self.skip(x) + h


def _inputs(batch: int, h: int, w: int) -> list:
    return [torch.randn(batch, IN_CH, h, w, dtype=torch.bfloat16), torch.randn(batch, EMB_DIM, dtype=torch.bfloat16)]


def get_inputs():
    return _inputs(BATCH, SIZE, SIZE)


def get_init_inputs():
    return [IN_CH, OUT_CH, EMB_DIM, GROUPS]


def get_alt_inputs():
    return [_inputs(1, 4, 4), _inputs(3, 9, 12)]
