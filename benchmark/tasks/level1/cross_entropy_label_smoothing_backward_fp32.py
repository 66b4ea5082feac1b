"""Backward of per-sample cross-entropy with label smoothing 0.1 over 1000 classes, in fp32 (as for
image classification): d logits = dloss * (softmax(logits) - (0.9 * onehot(target) + 0.1 / 1000)),
from the logits, the targets and the per-sample upstream gradient.

Tolerance: most elements are of order 1 / 1000, so the absolute tolerance is scaled down with them
(a kernel that drops the smoothing term is off by 1e-4); the relative tolerance stays fp32's."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "loss", "cross_entropy", "softmax"],
    "dtype": "float32",
    "difficulty": 2,
    "atol": 1e-7,
    "rtol": 1e-4,
}

SAMPLES, CLASSES = 32768, 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor, dloss: torch.Tensor) -> torch.Tensor:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. dloss holds one upstream gradient per sample.
        with torch.enable_grad():
            logits = logits.detach().requires_grad_()
            loss = F.cross_entropy(logits, target, reduction="none", label_smoothing=0.1)
            (dlogits,) = torch.autograd.grad(loss, logits, dloss)
        return dlogits


def _inputs(samples, classes):
    return [
        torch.randn(samples, classes) * 3,
        torch.randint(0, classes, (samples,)),
        torch.rand(samples) + 0.5,
    ]


def get_inputs():
    return _inputs(SAMPLES, CLASSES)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(3, 10), _inputs(999, 1001)]
