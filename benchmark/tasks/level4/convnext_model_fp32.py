"""ConvNextModel in fp32: patchify stem, four stages of depthwise-7x7 / LayerNorm / pointwise-MLP blocks with downsampling, pooled features."""

import torch
import torch.nn as nn
from transformers import ConvNextConfig, ConvNextModel

SOLBENCH = {"level": 4, "tags": ["convnet", "convnext", "vision", "depthwise"], "dtype": "float32", "difficulty": 3}

BATCH, IMAGE = 32, 224


class Model(nn.Module):
    def __init__(self, hidden_sizes: list[int], depths: list[int]):
        super().__init__()
        # layer scale 0.5 instead of the 1e-6 training default, so every block contributes to the output
        config = ConvNextConfig(hidden_sizes=hidden_sizes, depths=depths, image_size=IMAGE, layer_scale_init_value=0.5)
        self.model = ConvNextModel(config).eval()

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=pixel_values).pooler_output


def get_inputs():
    return [torch.randn(BATCH, 3, IMAGE, IMAGE)]


def get_init_inputs():
    return [[64, 128, 256, 512], [2, 2, 4, 2]]


def get_alt_inputs():
    return [[torch.randn(1, 3, 64, 64)], [torch.randn(2, 3, 96, 160)]]
