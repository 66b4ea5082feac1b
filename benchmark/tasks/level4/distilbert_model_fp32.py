"""DistilBertModel in fp32 with SDPA attention over a padded batch: sinusoid-free learned positions, post-norm layers."""

import torch
import torch.nn as nn
from transformers import DistilBertConfig, DistilBertModel

SOLBENCH = {"level": 4, "tags": ["transformer", "distilbert", "encoder", "padding_mask"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, DIM, LAYERS, HEADS = 32, 256, 30522, 768, 4, 12


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int, layers: int, heads: int):
        super().__init__()
        config = DistilBertConfig(
            vocab_size=vocab,
            dim=dim,
            n_layers=layers,
            n_heads=heads,
            hidden_dim=4 * dim,
            max_position_embeddings=512,
            attn_implementation="sdpa",
        )
        self.model = DistilBertModel(config).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def _inputs(batch: int, seq: int) -> list:
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    return [torch.randint(0, VOCAB, (batch, seq)), (torch.arange(seq)[None, :] < lengths[:, None]).long()]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [VOCAB, DIM, LAYERS, HEADS]


def get_alt_inputs():
    return [_inputs(1, 3), _inputs(4, 29)]
