"""BART encoder-decoder forward in fp32 (eager attention): encode a padded source, decode a target with causal self- and cross-attention."""

import torch
import torch.nn as nn
from transformers import BartConfig, BartModel

SOLBENCH = {"level": 4, "tags": ["transformer", "bart", "encoder_decoder", "cross_attention"], "dtype": "float32", "difficulty": 3}

BATCH, SRC_LEN, TGT_LEN, VOCAB, D_MODEL, LAYERS, HEADS = 8, 512, 128, 16384, 512, 3, 8


class Model(nn.Module):
    def __init__(self, vocab: int, d_model: int, layers: int, heads: int):
        super().__init__()
        config = BartConfig(
            vocab_size=vocab,
            d_model=d_model,
            encoder_layers=layers,
            decoder_layers=layers,
            encoder_attention_heads=heads,
            decoder_attention_heads=heads,
            encoder_ffn_dim=4 * d_model,
            decoder_ffn_dim=4 * d_model,
            max_position_embeddings=1024,
            use_cache=False,
            attn_implementation="eager",
        )
        self.model = BartModel(config).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, decoder_input_ids: torch.Tensor) -> torch.Tensor:
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids)
        return out.last_hidden_state


def _inputs(batch: int, src: int, tgt: int) -> list:
    lengths = torch.randint(src // 2, src + 1, (batch,))
    mask = (torch.arange(src)[None, :] < lengths[:, None]).long()
    return [torch.randint(4, VOCAB, (batch, src)), mask, torch.randint(4, VOCAB, (batch, tgt))]


def get_inputs():
    return _inputs(BATCH, SRC_LEN, TGT_LEN)


def get_init_inputs():
    return [VOCAB, D_MODEL, LAYERS, HEADS]


def get_alt_inputs():
    return [_inputs(1, 5, 2), _inputs(2, 61, 17)]
