"""CLIP vision tower in bf16 with SDPA attention (pre-LayerNorm, quick-GELU MLP): pooled class-token embedding per image."""

import torch
import torch.nn as nn
from transformers import CLIPVisionConfig, CLIPVisionModel

SOLBENCH = {"level": 4, "tags": ["transformer", "clip", "vision"], "dtype": "bfloat16", "difficulty": 3, "atol": 0.1, "rtol": 0.1}

BATCH, IMAGE, PATCH, HIDDEN, LAYERS, HEADS = 64, 224, 16, 768, 4, 12


class Model(nn.Module):
    def __init__(self, image: int, patch: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = CLIPVisionConfig(
            image_size=image,
            patch_size=patch,
            hidden_size=hidden,
            intermediate_size=4 * hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            attn_implementation="sdpa",
        )
        self.model = CLIPVisionModel(config).to(torch.bfloat16).eval()

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=pixel_values).pooler_output


def get_inputs():
    return [torch.randn(BATCH, 3, IMAGE, IMAGE, dtype=torch.bfloat16)]


def get_init_inputs():
    return [IMAGE, PATCH, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 3, IMAGE, IMAGE, dtype=torch.bfloat16)], [torch.randn(3, 3, IMAGE, IMAGE, dtype=torch.bfloat16)]]
