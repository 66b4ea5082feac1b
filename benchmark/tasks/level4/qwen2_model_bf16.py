"""Qwen2Model in bf16 (SDPA, grouped-query attention with biased q/k/v projections, SwiGLU): final hidden states."""

import torch
import torch.nn as nn
from transformers import Qwen2Config, Qwen2Model

SOLBENCH = {"level": 4, "tags": ["transformer", "qwen2", "grouped_query"], "dtype": "bfloat16", "difficulty": 3, "atol": 0.1, "rtol": 0.1}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, INTERMEDIATE = 8, 512, 32768, 896, 4, 14, 2, 4864


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, intermediate: int):
        super().__init__()
        config = Qwen2Config(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            intermediate_size=intermediate,
            max_position_embeddings=4096,
            attn_implementation="sdpa",
        )
        self.model = Qwen2Model(config).to(torch.bfloat16).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, INTERMEDIATE]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 2))], [torch.randint(0, VOCAB, (3, 77))]]
