"""RobertaModel in bf16 with SDPA attention over a padded batch (padding-aware position ids): encoder hidden states."""

import torch
import torch.nn as nn
from transformers import RobertaConfig, RobertaModel

SOLBENCH = {"level": 4, "tags": ["transformer", "roberta", "encoder", "padding_mask"], "dtype": "bfloat16", "difficulty": 3, "atol": 0.1, "rtol": 0.1}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, PAD = 16, 512, 32000, 1024, 4, 16, 1


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = RobertaConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=4 * hidden,
            max_position_embeddings=SEQ + 2,
            pad_token_id=PAD,
            attn_implementation="sdpa",
        )
        self.model = RobertaModel(config).to(torch.bfloat16).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def _inputs(batch: int, seq: int) -> list:
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    mask = (torch.arange(seq)[None, :] < lengths[:, None]).long()
    ids = torch.randint(PAD + 1, VOCAB, (batch, seq)) * mask + PAD * (1 - mask)
    return [ids, mask]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [_inputs(1, 6), _inputs(2, 90)]
