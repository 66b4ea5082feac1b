"""SwinModel in fp32: shifted-window attention with relative-position bias over four stages with patch merging, pooled features."""

import torch
import torch.nn as nn
from transformers import SwinConfig, SwinModel

SOLBENCH = {"level": 4, "tags": ["transformer", "swin", "vision", "window_attention"], "dtype": "float32", "difficulty": 3}

BATCH, IMAGE = 32, 224


class Model(nn.Module):
    def __init__(self, embed_dim: int, depths: list[int], heads: list[int]):
        super().__init__()
        config = SwinConfig(image_size=IMAGE, patch_size=4, embed_dim=embed_dim, depths=depths, num_heads=heads, window_size=7)
        self.model = SwinModel(config).eval()

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=pixel_values).pooler_output


def get_inputs():
    return [torch.randn(BATCH, 3, IMAGE, IMAGE)]


def get_init_inputs():
    return [64, [2, 2, 2, 2], [2, 4, 8, 16]]


def get_alt_inputs():
    return [[torch.randn(1, 3, IMAGE, IMAGE)], [torch.randn(2, 3, IMAGE, IMAGE)]]
