"""Encoder embeddings: word + position + segment embedding lookups summed, then LayerNorm, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["embedding", "gather", "norm", "layernorm"],
    "dtype": "float32",
    "difficulty": 2,
}

B, S, D, VOCAB, MAX_LEN, SEGMENTS = 128, 512, 768, 30522, 512, 2


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int, max_len: int, segments: int):
        super().__init__()
        self.word = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(max_len, dim)
        self.segment = nn.Embedding(segments, dim)
        self.norm = nn.LayerNorm(dim, eps=1e-12)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_(0.0, 0.2)

    def forward(self, ids: torch.Tensor, segment_ids: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(ids.shape[1], device=ids.device)
        return self.norm(self.word(ids) + self.position(pos) + self.segment(segment_ids))


def _inputs(b, s):
    split = torch.randint(1, s + 1, (b, 1))
    segment_ids = (torch.arange(s)[None, :] >= split).long()
    return [torch.randint(0, VOCAB, (b, s)), segment_ids]


def get_inputs():
    return _inputs(B, S)


def get_init_inputs():
    return [VOCAB, D, MAX_LEN, SEGMENTS]


def get_alt_inputs():
    return [_inputs(1, 1), _inputs(5, 129)]
