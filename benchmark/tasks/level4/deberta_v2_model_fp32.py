"""DebertaV2Model in fp32: disentangled attention with content-to-position and position-to-content terms over log-bucketed relative positions."""

import torch
import torch.nn as nn
from transformers import DebertaV2Config, DebertaV2Model

SOLBENCH = {"level": 4, "tags": ["transformer", "deberta", "encoder", "relative_position", "padding_mask"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS = 8, 512, 32000, 768, 3, 12


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = DebertaV2Config(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=4 * hidden,
            max_position_embeddings=512,
            relative_attention=True,
            position_buckets=256,
            max_relative_positions=-1,
            pos_att_type=["p2c", "c2p"],
            position_biased_input=False,
            norm_rel_ebd="layer_norm",
            share_att_key=True,
        )
        self.model = DebertaV2Model(config).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def _inputs(batch: int, seq: int) -> list:
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    return [torch.randint(0, VOCAB, (batch, seq)), (torch.arange(seq)[None, :] < lengths[:, None]).long()]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [_inputs(1, 4), _inputs(2, 75)]
