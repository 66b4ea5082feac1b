"""PhiModel in fp32 (SDPA): parallel attention and GELU MLP off one LayerNorm, partial rotary embeddings on half of each head."""

import torch
import torch.nn as nn
from transformers import PhiConfig, PhiModel

SOLBENCH = {"level": 4, "tags": ["transformer", "phi", "parallel_block", "rotary"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS = 8, 512, 16384, 1024, 3, 16


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = PhiConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=4 * hidden,
            partial_rotary_factor=0.5,
            max_position_embeddings=2048,
            attn_implementation="sdpa",
        )
        self.model = PhiModel(config).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 4))], [torch.randint(0, VOCAB, (3, 44))]]
