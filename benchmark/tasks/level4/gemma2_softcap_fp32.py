"""Gemma2 model in fp32 with eager attention: alternating sliding-window and global layers, attention-logit soft-capping, sandwich norms."""

import torch
import torch.nn as nn
from transformers import Gemma2Config, Gemma2Model

SOLBENCH = {"level": 4, "tags": ["transformer", "gemma2", "softcap", "sliding_window"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE, WINDOW = 4, 512, 16384, 768, 4, 8, 4, 96, 2048, 128


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, head_dim: int, intermediate: int, window: int):
        super().__init__()
        config = Gemma2Config(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            head_dim=head_dim,
            intermediate_size=intermediate,
            sliding_window=window,
            query_pre_attn_scalar=head_dim,
            attn_logit_softcapping=50.0,
            final_logit_softcapping=30.0,
            max_position_embeddings=4096,
            attn_implementation="eager",
        )
        self.model = Gemma2Model(config).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE, WINDOW]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 3))], [torch.randint(0, VOCAB, (2, 150))]]
