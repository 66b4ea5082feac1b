"""GPT-NeoX model in fp32 (SDPA, partial rotary embeddings, parallel attention + MLP residual): final hidden states."""

import torch
import torch.nn as nn
from transformers import GPTNeoXConfig, GPTNeoXModel

SOLBENCH = {"level": 4, "tags": ["transformer", "gpt_neox", "parallel_block", "rotary"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS = 8, 512, 16384, 768, 4, 12


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = GPTNeoXConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=4 * hidden,
            max_position_embeddings=2048,
            use_parallel_residual=True,
            attn_implementation="sdpa",
        )
        self.model = GPTNeoXModel(config).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 3))], [torch.randint(0, VOCAB, (2, 61))]]
