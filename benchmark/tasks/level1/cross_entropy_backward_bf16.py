"""Backward of the mean token cross-entropy over a 32768-entry vocabulary, in bf16, with padding
targets (-100) ignored: d logits = (softmax(logits) - onehot(target)) * dloss / (number of counted
tokens), zero on ignored rows. The logits' gradient of a language model's loss, the largest
activation gradient in its training step.

Tolerance: the gradients are of order 1 / tokens, so the absolute tolerance is scaled down with
them; the relative tolerance stays bf16's."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "loss", "cross_entropy", "softmax"],
    "dtype": "bfloat16",
    "difficulty": 2,
    "atol": 1e-8,
    "rtol": 2e-2,
}

TOKENS, VOCAB = 4096, 32768


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor, dloss: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. dloss is the upstream gradient of the scalar loss.
        with torch.enable_grad():
            logits = logits.detach().requires_grad_()
            loss = F.cross_entropy(logits, target, ignore_index=-100)
            (dlogits,) = torch.autograd.grad(loss, logits, dloss)
        return dlogits


def _inputs(tokens, vocab):
    target = torch.randint(0, vocab, (tokens,))
    target[torch.rand(tokens) < 0.1] = -100  # padding
    target[0] = 0  # at least one counted token
    return [
        torch.randn(tokens, vocab, dtype=torch.bfloat16) * 3,
        target,
        torch.rand((), dtype=torch.bfloat16) + 0.5,
    ]


def get_inputs():
    return _inputs(TOKENS, VOCAB)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 1001), _inputs(1001, 17)]
