"""GemmaModel in bf16 (SDPA): scaled embeddings, (1 + weight) RMSNorm, GeGLU MLP with tanh-GELU, multi-query attention with 256-wide heads."""

import torch
import torch.nn as nn
from transformers import GemmaConfig, GemmaModel

SOLBENCH = {"level": 4, "tags": ["transformer", "gemma", "multi_query", "geglu"], "dtype": "bfloat16", "difficulty": 3, "atol": 0.1, "rtol": 0.1}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE = 4, 1024, 32000, 1024, 4, 8, 1, 256, 4096


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, head_dim: int, intermediate: int):
        super().__init__()
        config = GemmaConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            head_dim=head_dim,
            intermediate_size=intermediate,
            max_position_embeddings=4096,
            attn_implementation="sdpa",
        )
        self.model = GemmaModel(config).to(torch.bfloat16).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 2))], [torch.randint(0, VOCAB, (3, 39))]]
