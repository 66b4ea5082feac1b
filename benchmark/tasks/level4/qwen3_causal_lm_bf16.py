"""Qwen3 causal LM in bf16 (QK-norm attention, grouped-query, tied embeddings, SDPA): next-token logits."""

import torch
import torch.nn as nn
from transformers import Qwen3Config, Qwen3ForCausalLM

SOLBENCH = {"level": 4, "tags": ["transformer", "qwen3", "causal_lm", "qk_norm"], "dtype": "bfloat16", "difficulty": 3, "atol": 0.1, "rtol": 0.1}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE = 4, 1024, 32768, 1024, 4, 16, 8, 128, 3072


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, head_dim: int, intermediate: int):
        super().__init__()
        config = Qwen3Config(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            head_dim=head_dim,
            intermediate_size=intermediate,
            max_position_embeddings=4096,
            tie_word_embeddings=True,
            attn_implementation="sdpa",
        )
        self.model = Qwen3ForCausalLM(config).to(torch.bfloat16).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 4))], [torch.randint(0, VOCAB, (2, 99))]]
