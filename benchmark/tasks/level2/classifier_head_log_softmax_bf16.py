"""Language-model head: GEMM to a 32000-word vocabulary followed by log-softmax, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "log_softmax", "softmax", "classifier"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

M, K, V = 4096, 2048, 32000


class Model(nn.Module):
    def __init__(self, hidden: int, vocab: int):
        super().__init__()
        self.head = nn.Linear(hidden, vocab, bias=False, dtype=torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(self.head(x), dim=-1)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16) * 3]


def get_init_inputs():
    return [K, V]


def get_alt_inputs():
    return [[torch.randn(1, K, dtype=torch.bfloat16) * 3], [torch.randn(37, K, dtype=torch.bfloat16) * 3]]
