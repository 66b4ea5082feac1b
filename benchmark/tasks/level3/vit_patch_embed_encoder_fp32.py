"""ViT front end: 16x16 patch embedding conv, class token, learned position embeddings, one pre-norm encoder block, final LayerNorm."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["vision", "patch_embedding", "attention", "transformer_block"], "dtype": "float32", "difficulty": 3}

BATCH, IMAGE, PATCH, DIM, HEADS = 32, 224, 16, 384, 6


class Model(nn.Module):
    def __init__(self, image: int, patch: int, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, dim) * 0.02)
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.norm_out = nn.LayerNorm(dim, eps=1e-6)
        nn.init.normal_(self.qkv.weight, std=1.5 / math.sqrt(dim))

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(pixels).flatten(2).transpose(1, 2)  # (b, patches, dim)
        x = torch.cat((self.cls.expand(x.shape[0], -1, -1), x), dim=1) + self.pos
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attn = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1)
        x = x + self.proj((attn @ v).transpose(1, 2).reshape(b, s, d))
        x = x + self.fc2(F.gelu(self.fc1(self.norm2(x))))
        return self.norm_out(x)


def get_inputs():
    return [torch.randn(BATCH, 3, IMAGE, IMAGE)]


def get_init_inputs():
    return [IMAGE, PATCH, DIM, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 3, IMAGE, IMAGE)], [torch.randn(3, 3, IMAGE, IMAGE)]]
