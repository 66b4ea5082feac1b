"""BertModel in fp32 with eager attention over a right-padded batch with segment ids: post-norm encoder hidden states."""

import torch
import torch.nn as nn
from transformers import BertConfig, BertModel

SOLBENCH = {"level": 4, "tags": ["transformer", "bert", "encoder", "padding_mask"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS = 16, 384, 30522, 768, 4, 12


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = BertConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=4 * hidden,
            max_position_embeddings=512,
            attn_implementation="eager",
        )
        self.model = BertModel(config, add_pooling_layer=False).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state


def _inputs(batch: int, seq: int) -> list:
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    positions = torch.arange(seq)[None, :]
    mask = (positions < lengths[:, None]).long()
    segments = (positions >= lengths[:, None] // 2).long() * mask  # sentence A then sentence B
    return [torch.randint(0, VOCAB, (batch, seq)), mask, segments]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [_inputs(1, 4), _inputs(3, 53)]
