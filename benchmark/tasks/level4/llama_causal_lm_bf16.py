"""Llama causal LM (4 layers, grouped-query attention, SwiGLU, RoPE) in bf16 with SDPA attention: next-token logits for a batch of sequences."""

import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaForCausalLM

SOLBENCH = {"level": 4, "tags": ["transformer", "llama", "causal_lm", "grouped_query"], "dtype": "bfloat16", "difficulty": 3, "atol": 0.1, "rtol": 0.1}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, INTERMEDIATE = 4, 1024, 32000, 1024, 4, 16, 4, 2816


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, intermediate: int):
        super().__init__()
        config = LlamaConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            intermediate_size=intermediate,
            max_position_embeddings=4096,
            attn_implementation="sdpa",
        )
        self.model = LlamaForCausalLM(config).to(torch.bfloat16).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, INTERMEDIATE]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 7))], [torch.randint(0, VOCAB, (3, 65))]]
