"""MistralModel in bf16 with a 256-token sliding attention window over 1024-token sequences (SDPA, grouped-query attention)."""

import torch
import torch.nn as nn
from transformers import MistralConfig, MistralModel

SOLBENCH = {"level": 4, "tags": ["transformer", "mistral", "sliding_window", "grouped_query"], "dtype": "bfloat16", "difficulty": 3, "atol": 0.1, "rtol": 0.1}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, INTERMEDIATE, WINDOW = 4, 1024, 32000, 1024, 4, 16, 8, 3584, 256


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, intermediate: int, window: int):
        super().__init__()
        config = MistralConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            intermediate_size=intermediate,
            sliding_window=window,
            max_position_embeddings=4096,
            attn_implementation="sdpa",
        )
        self.model = MistralModel(config).to(torch.bfloat16).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, INTERMEDIATE, WINDOW]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 3))], [torch.randint(0, VOCAB, (2, 300))]]
