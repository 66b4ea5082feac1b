"""Swin window attention: partition a feature map into 7x7 windows, attend within each window with a relative-position bias table, merge back."""

import math

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["vision", "window_attention", "relative_position", "attention"], "dtype": "float32", "difficulty": 3}

BATCH, SIZE, DIM, HEADS, WINDOW = 32, 56, 128, 4, 7


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, window: int):
        super().__init__()
        self.heads, self.window = heads, window
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.bias_table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        nn.init.normal_(self.qkv.weight, std=1.2 / math.sqrt(dim))
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (window - 1)  # (w*w, w*w, 2)
        self.register_buffer("rel_index", rel[..., 0] * (2 * window - 1) + rel[..., 1], persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape  # channels-last feature map; h and w are multiples of the window
        win = self.window
        windows = x.view(b, h // win, win, w // win, win, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, win * win, c)
        n = windows.shape[0]
        q, k, v = self.qkv(windows).view(n, win * win, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        bias = self.bias_table[self.rel_index].permute(2, 0, 1)  # (heads, w*w, w*w)
        attn = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(c // self.heads) + bias, dim=-1)
        out = self.proj((attn @ v).transpose(1, 2).reshape(n, win * win, c))
        return out.view(b, h // win, w // win, win, win, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)


def get_inputs():
    return [torch.randn(BATCH, SIZE, SIZE, DIM)]


def get_init_inputs():
    return [DIM, HEADS, WINDOW]


def get_alt_inputs():
    return [[torch.randn(1, WINDOW, WINDOW, DIM)], [torch.randn(2, 3 * WINDOW, 2 * WINDOW, DIM)]]
