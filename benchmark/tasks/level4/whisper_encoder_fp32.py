"""Whisper audio encoder in fp32 (SDPA): two conv1d stem layers with GELU over log-mel frames, sinusoidal positions, 4 transformer layers."""

import torch
import torch.nn as nn
from transformers import WhisperConfig
from transformers.models.whisper.modeling_whisper import WhisperEncoder

SOLBENCH = {"level": 4, "tags": ["transformer", "whisper", "audio", "conv1d", "encoder"], "dtype": "float32", "difficulty": 3}

BATCH, MEL_BINS, FRAMES, D_MODEL, LAYERS, HEADS = 8, 80, 3000, 512, 4, 8


class Model(nn.Module):
    def __init__(self, mel_bins: int, frames: int, d_model: int, layers: int, heads: int):
        super().__init__()
        config = WhisperConfig(
            num_mel_bins=mel_bins,
            d_model=d_model,
            encoder_layers=layers,
            encoder_attention_heads=heads,
            encoder_ffn_dim=4 * d_model,
            decoder_layers=1,
            decoder_attention_heads=heads,
            decoder_ffn_dim=4 * d_model,
            max_source_positions=frames // 2,
            attn_implementation="sdpa",
        )
        self.encoder = WhisperEncoder(config).eval()

    def forward(self, input_features: torch.Tensor) -> torch.Tensor:
        return self.encoder(input_features=input_features).last_hidden_state


def get_inputs():
    return [torch.randn(BATCH, MEL_BINS, FRAMES)]


def get_init_inputs():
    return [MEL_BINS, FRAMES, D_MODEL, LAYERS, HEADS]


def get_alt_inputs():
    return [[torch.randn(1, MEL_BINS, FRAMES)], [torch.randn(2, MEL_BINS, FRAMES)]]
