"""Per-sample label-smoothed cross-entropy of GEMM logits, in fp32: needs the target logit, the logsumexp and the logit sum."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "cross_entropy", "loss", "log_softmax"],
    "dtype": "float32",
    "difficulty": 3,
}

M, K, V = 2048, 1024, 16384


class Model(nn.Module):
    def __init__(self, hidden: int, vocab: int, smoothing: float):
        super().__init__()
        self.head = nn.Linear(hidden, vocab)
        self.smoothing = smoothing

    def forward(self, x: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self.head(x), targets, reduction="none", label_smoothing=self.smoothing)


def get_inputs():
    return [torch.randn(M, K) * 3, torch.randint(0, V, (M,))]


def get_init_inputs():
    return [K, V, 0.1]


def get_alt_inputs():
    return [
        [torch.randn(2, K) * 3, torch.randint(0, V, (2,))],
        [torch.randn(130, K) * 3, torch.randint(0, V, (130,))],
    ]
