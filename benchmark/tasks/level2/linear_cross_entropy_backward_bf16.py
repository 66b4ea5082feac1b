"""Backward of a language-model head and its per-token cross-entropy (hidden 1024, vocabulary
16384, 2048 tokens), in bf16 with the logits upcast to fp32 for the loss: the gradients of the
hidden states and of the head's weight from the hidden states, the targets and each token's
upstream loss gradient. The logits (2048 x 16384) are recomputed, turned into softmax minus
one-hot, and multiplied back twice; a fused kernel never writes them to memory.

Tolerance: the weight's gradient is mostly of order 1e-3 (a row gathers the hidden states of the
few tokens that target it), so the absolute tolerance is scaled down; the relative stays bf16's."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["backward", "loss", "cross_entropy", "gemm", "softmax"],
    "dtype": "bfloat16",
    "difficulty": 3,
    "atol": 1e-4,
    "rtol": 2e-2,
}

TOKENS, DIM, VOCAB = 2048, 1024, 16384


class Model(nn.Module):
    def __init__(self, dim: int, vocab: int):
        super().__init__()
        self.weight = nn.Parameter((torch.randn(vocab, dim) * (2 / math.sqrt(dim))).to(torch.bfloat16))

    def forward(
        self, h: torch.Tensor, target: torch.Tensor, dloss: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. Returns (dh, dweight).
        with torch.enable_grad():
            h = h.detach().requires_grad_()
            logits = F.linear(h, self.weight)
            loss = F.cross_entropy(logits.float(), target, reduction="none")
            return torch.autograd.grad(loss, (h, self.weight), dloss.to(loss.dtype))


def _inputs(tokens, vocab):
    return [
        torch.randn(tokens, DIM, dtype=torch.bfloat16),
        torch.randint(0, vocab, (tokens,)),
        torch.rand(tokens, dtype=torch.bfloat16) + 0.5,
    ]


def get_inputs():
    return _inputs(TOKENS, VOCAB)


def get_init_inputs():
    return [DIM, VOCAB]


def get_alt_inputs():
    return [_inputs(3, VOCAB), _inputs(333, VOCAB)]
