"""Backward of a token embedding (50257 x 1024, fp32) with a padding index: the table's gradient is
the upstream gradient's rows scatter-added at their token ids, zero for tokens not in the batch and
for the padding token. Token ids follow a skewed (Zipf-like) distribution, so frequent tokens
collect hundreds of rows: duplicate indices are the whole difficulty."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "embedding", "scatter", "indexing"],
    "dtype": "float32",
    "difficulty": 2,
}

VOCAB, DIM, BATCH, SEQ, PAD = 50257, 1024, 8, 2048, 0


class Model(nn.Module):
    def __init__(self, vocab: int, padding_idx: int):
        super().__init__()
        self.vocab = vocab
        self.padding_idx = padding_idx

    def forward(self, tokens: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # The op autograd runs for nn.Embedding's backward (the forward lookup is not needed):
        # dW[v] = sum of dy[t] over positions t with tokens[t] == v, except v == padding_idx.
        return torch.ops.aten.embedding_dense_backward(dy, tokens, self.vocab, self.padding_idx, False)


def _inputs(*shape):
    tokens = (torch.rand(*shape) ** 3 * VOCAB).long()  # skewed: low ids are frequent, 0 is padding
    return [tokens, torch.randn(*shape, DIM)]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [VOCAB, PAD]


def get_alt_inputs():
    return [_inputs(3), _inputs(3, 333)]
