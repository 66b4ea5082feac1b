"""LlamaModel hidden states in fp32 with eager attention over a left-padded batch (attention mask combined with the causal mask)."""

import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaModel

SOLBENCH = {"level": 4, "tags": ["transformer", "llama", "padding_mask", "causal"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, INTERMEDIATE = 8, 512, 16000, 512, 4, 8, 1408


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, intermediate: int):
        super().__init__()
        config = LlamaConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=heads,
            intermediate_size=intermediate,
            max_position_embeddings=2048,
            attn_implementation="eager",
        )
        self.model = LlamaModel(config).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
        return torch.where(attention_mask[..., None].bool(), out, 0.0)  # padded positions carry no meaning


def _inputs(batch: int, seq: int) -> list:
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    mask = (torch.arange(seq)[None, :] >= seq - lengths[:, None]).long()  # left padding
    return [torch.randint(0, VOCAB, (batch, seq)), mask]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, INTERMEDIATE]


def get_alt_inputs():
    return [_inputs(1, 5), _inputs(3, 41)]
