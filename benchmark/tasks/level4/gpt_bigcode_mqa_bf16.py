"""GPTBigCode (StarCoder-style) model in bf16 with SDPA: multi-query attention with one shared key/value head, learned positions."""

import torch
import torch.nn as nn
from transformers import GPTBigCodeConfig, GPTBigCodeModel

SOLBENCH = {"level": 4, "tags": ["transformer", "gpt_bigcode", "multi_query", "causal"], "dtype": "bfloat16", "difficulty": 3, "atol": 0.1, "rtol": 0.1}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS = 8, 1024, 32768, 1024, 4, 16


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = GPTBigCodeConfig(
            vocab_size=vocab,
            n_positions=2048,
            n_embd=hidden,
            n_layer=layers,
            n_head=heads,
            bos_token_id=0,
            eos_token_id=0,
            multi_query=True,
            attn_implementation="sdpa",
        )
        self.model = GPTBigCodeModel(config).to(torch.bfloat16).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 1))], [torch.randint(0, VOCAB, (2, 83))]]
