"""A CPU-sized backward task in the suite's form (level1/rmsnorm_backward_fp32 at 64 x 256): the
input and weight gradients of RMSNorm from the input and the upstream gradient, through autograd."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["backward", "normalization", "rmsnorm"], "dtype": "float32", "difficulty": 2}

ROWS, FEATURES = 64, 256


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(features))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
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
    return [_pair(3, FEATURES), _pair(2, 17, FEATURES)]
