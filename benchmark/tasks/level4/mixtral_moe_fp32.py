"""MixtralModel in fp32 (fp32 keeps routing stable): 2 layers of 8 sparse SwiGLU experts with top-2 routing, eager expert loop, SDPA attention."""

import torch
import torch.nn as nn
from transformers import MixtralConfig, MixtralModel

SOLBENCH = {"level": 4, "tags": ["transformer", "mixtral", "moe", "routing"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, INTERMEDIATE, EXPERTS, TOP_K = 4, 512, 32000, 1024, 2, 16, 4, 2048, 8, 2


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, intermediate: int, experts: int, top_k: int):
        super().__init__()
        config = MixtralConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            intermediate_size=intermediate,
            num_local_experts=experts,
            num_experts_per_tok=top_k,
            max_position_embeddings=4096,
            attn_implementation="sdpa",
            experts_implementation="eager",
        )
        self.model = MixtralModel(config).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, INTERMEDIATE, EXPERTS, TOP_K]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 3))], [torch.randint(0, VOCAB, (2, 57))]]
