"""Language-model head with tanh logit soft-capping (cap * tanh(z / cap)) before log-softmax, in bf16."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "activation", "log_softmax", "softmax", "classifier"],
    "dtype": "bfloat16",
    "difficulty": 2,
}

M, K, V = 2048, 2048, 50176


class Model(nn.Module):
    def __init__(self, hidden: int, vocab: int, cap: float):
        super().__init__()
        self.head = nn.Linear(hidden, vocab, bias=False, dtype=torch.bfloat16)
        self.cap = cap

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.cap * torch.tanh(self.head(x) / self.cap)
        return torch.log_softmax(logits, dim=-1)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16) * 8]


def get_init_inputs():
    return [K, V, 10.0]


def get_alt_inputs():
    return [[torch.randn(3, K, dtype=torch.bfloat16) * 8], [torch.randn(60, K, dtype=torch.bfloat16) * 8]]
