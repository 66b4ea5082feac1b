"""Wav2Vec2Model in fp32 over raw 16 kHz audio: 7-layer strided conv feature encoder, convolutional relative positions, 4 transformer layers."""

import torch
import torch.nn as nn
from transformers import Wav2Vec2Config, Wav2Vec2Model

SOLBENCH = {"level": 4, "tags": ["transformer", "wav2vec2", "audio", "conv1d", "encoder"], "dtype": "float32", "difficulty": 3}

BATCH, SAMPLES, HIDDEN, LAYERS, HEADS = 8, 64000, 768, 4, 12


class Model(nn.Module):
    def __init__(self, hidden: int, layers: int, heads: int):
        super().__init__()
        config = Wav2Vec2Config(
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=4 * hidden,
            feat_extract_norm="group",
            do_stable_layer_norm=False,
            apply_spec_augment=False,
            attn_implementation="sdpa",
        )
        self.model = Wav2Vec2Model(config).eval()

    def forward(self, input_values: torch.Tensor) -> torch.Tensor:
        return self.model(input_values=input_values).last_hidden_state


def get_inputs():
    return [torch.randn(BATCH, SAMPLES)]


def get_init_inputs():
    return [HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, 4000)], [torch.randn(2, 12345)]]
