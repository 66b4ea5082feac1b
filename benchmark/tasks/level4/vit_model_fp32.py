"""ViTModel in fp32 with SDPA attention: patch embedding, class token, 6 pre-norm encoder layers over 224x224 images."""

import torch
import torch.nn as nn
from transformers import ViTConfig, ViTModel

SOLBENCH = {"level": 4, "tags": ["transformer", "vit", "vision"], "dtype": "float32", "difficulty": 3}

BATCH, IMAGE, PATCH, HIDDEN, LAYERS, HEADS = 32, 224, 16, 384, 6, 6


class Model(nn.Module):
    def __init__(self, image: int, patch: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = ViTConfig(
            image_size=image,
            patch_size=patch,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=4 * hidden,
            attn_implementation="sdpa",
        )
        self.model = ViTModel(config, add_pooling_layer=False).eval()

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=pixel_values).last_hidden_state


def get_inputs():
    return [torch.randn(BATCH, 3, IMAGE, IMAGE)]


def get_init_inputs():
    return [IMAGE, PATCH, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 3, IMAGE, IMAGE)], [torch.randn(3, 3, IMAGE, IMAGE)]]
