"""GPT-2 LM head model in fp32 with eager attention (learned positions, fused QKV Conv1D, tanh-GELU): logits over a 16k vocabulary."""

import torch
import torch.nn as nn
from transformers import GPT2Config, GPT2LMHeadModel

SOLBENCH = {"level": 4, "tags": ["transformer", "gpt2", "causal_lm"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS = 8, 512, 16384, 768, 4, 12


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = GPT2Config(
            vocab_size=vocab,
            n_positions=1024,
            n_embd=hidden,
            n_layer=layers,
            n_head=heads,
            bos_token_id=0,
            eos_token_id=0,
            attn_implementation="eager",
        )
        self.model = GPT2LMHeadModel(config).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 1))], [torch.randint(0, VOCAB, (3, 50))]]
