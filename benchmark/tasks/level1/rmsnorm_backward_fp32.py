"""Backward of RMS normalization over 4096 features with a learned scale, in fp32: the input and
weight gradients from the input and the upstream gradient (the row's rms recomputed). The
normalization of LLaMA-style models; every training step runs it twice per layer."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["backward", "normalization", "rmsnorm"], "dtype": "float32", "difficulty": 2}

ROWS, FEATURES = 8192, 4096


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(features))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Autograd is the reference (forward recomputed, then backward), with grad mode switched on
        # under the harness's no_grad. Returns (dx, dweight).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.rms_norm(x, x.shape[-1:], self.weight, eps=1e-6)
            return torch.autograd.grad(y, (x, self.weight), dy)


def _pair(*shape):
    return [torch.randn(*shape) * 2 + 0.5, torch.randn(*shape)]


def get_inputs():
    return _pair(ROWS, FEATURES)


def get_init_inputs():
    return [FEATURES]


def get_alt_inputs():
    return [_pair(3, FEATURES), _pair(2, 333, FEATURES)]
