"""Backward of a token embedding (32000 x 2048, bf16): the table's gradient is the upstream
gradient's rows scatter-added at their token ids, zero for tokens not in the batch. Token ids are
skewed (Zipf-like), so frequent tokens sum hundreds of bf16 rows; the sum must be accumulated wider
than bf16 and rounded once."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "embedding", "scatter", "indexing"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

VOCAB, DIM, BATCH, SEQ = 32000, 2048, 4, 4096


class Model(nn.Module):
    def __init__(self, vocab: int):
        super().__init__()
        self.vocab = vocab

    def forward(self, tokens: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        # The op autograd runs for nn.Embedding's backward (the forward lookup is not needed):
        # dW[v] = sum of dy[t] over positions t with tokens[t] == v.
        return torch.ops.aten.embedding_dense_backward(dy, tokens, self.vocab, -1, False)


def _inputs(*shape):
    tokens = (torch.rand(*shape) ** 4 * VOCAB).long()  # skewed: low ids are frequent
    return [tokens, torch.randn(*shape, DIM, dtype=torch.bfloat16)]


def get_inputs():
    return _inputs(BATCH, SEQ)


def get_init_inputs():
    return [VOCAB]


def get_alt_inputs():
    return [_inputs(5), _inputs(2, 999)]
