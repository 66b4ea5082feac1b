"""T5 encoder in fp32 with eager attention: bucketed relative-position bias, RMS-style layer norm, gated-GELU feed-forward."""

import torch
import torch.nn as nn
from transformers import T5Config, T5EncoderModel

SOLBENCH = {"level": 4, "tags": ["transformer", "t5", "encoder", "relative_position"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, D_MODEL, D_KV, D_FF, LAYERS, HEADS = 8, 512, 32128, 512, 64, 1024, 4, 8


class Model(nn.Module):
    def __init__(self, vocab: int, d_model: int, d_kv: int, d_ff: int, layers: int, heads: int):
        super().__init__()
        config = T5Config(
            vocab_size=vocab,
            d_model=d_model,
            d_kv=d_kv,
            d_ff=d_ff,
            num_layers=layers,
            num_heads=heads,
            feed_forward_proj="gated-gelu",
            is_encoder_decoder=False,
            use_cache=False,
            attn_implementation="eager",
        )
        self.model = T5EncoderModel(config).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def _inputs(batch: int, seq: int) -> list:
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    return [torch.randint(0, VOCAB, (batch, seq)), (torch.arange(seq)[None, :] < lengths[:, None]).long()]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [VOCAB, D_MODEL, D_KV, D_FF, LAYERS, HEADS]


def get_alt_inputs():
    return [_inputs(1, 3), _inputs(3, 70)]
