"""A three-layer torch.nn.TransformerEncoder (pre-norm, GELU, no dropout): the stock module many models build on."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["layer_stack", "transformer_block", "pre_norm"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, DIM, HEADS, FFN, DEPTH = 8, 384, 512, 8, 2048, 3


class Model(nn.Module):
    def __init__(self, dim: int, heads: int, ffn: int, depth: int):
        super().__init__()
        layer = nn.TransformerEncoderLayer(
            dim, heads, dim_feedforward=ffn, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, depth, norm=nn.LayerNorm(dim), enable_nested_tensor=False)
        for mod in self.encoder.layers:
            nn.init.normal_(mod.self_attn.in_proj_weight, std=1.5 / dim**0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HEADS, FFN, DEPTH]


def get_alt_inputs():
    return [[torch.randn(1, 4, DIM)], [torch.randn(2, 77, DIM)]]
