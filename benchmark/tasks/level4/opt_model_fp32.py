"""OPTModel in fp32 with eager attention: learned offset positions, pre-LayerNorm decoder layers with ReLU MLPs, padded batch."""

import torch
import torch.nn as nn
from transformers import OPTConfig, OPTModel

SOLBENCH = {"level": 4, "tags": ["transformer", "opt", "causal", "padding_mask"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS = 8, 512, 16384, 768, 4, 12


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int):
        super().__init__()
        config = OPTConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            word_embed_proj_dim=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            ffn_dim=4 * hidden,
            max_position_embeddings=1024,
            attn_implementation="eager",
        )
        self.model = OPTModel(config).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
        return torch.where(attention_mask[..., None].bool(), out, 0.0)  # padded positions carry no meaning


def _inputs(batch: int, seq: int) -> list:
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    return [torch.randint(4, VOCAB, (batch, seq)), (torch.arange(seq)[None, :] < lengths[:, None]).long()]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS]


def get_alt_inputs():
    return [_inputs(1, 2), _inputs(3, 66)]
