"""Backward of training-mode batch normalization over the 1024 features of a 32768-row fp16 batch
(batch statistics, as in an MLP's BatchNorm1d): input, weight and bias gradients. The reductions
run down columns, over every row, so the access pattern is the transpose of layer norm's."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 1,
    "tags": ["backward", "normalization", "batchnorm"],
    "dtype": "float16",
    "difficulty": 2,
}

ROWS, FEATURES = 32768, 1024


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(features, dtype=torch.float16))
        self.bias = nn.Parameter(0.1 * torch.randn(features, dtype=torch.float16))

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Autograd is the reference (forward recomputed with batch statistics, then backward), with
        # grad mode switched on under the harness's no_grad. Returns (dx, dweight, dbias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = F.batch_norm(x, None, None, self.weight, self.bias, training=True, eps=1e-5)
            return torch.autograd.grad(y, (x, self.weight, self.bias), dy)


def _pair(rows, features):
    return [
        torch.randn(rows, features, dtype=torch.float16) * 2 - 1,
        torch.randn(rows, features, dtype=torch.float16),
    ]


def get_inputs():
    return _pair(ROWS, FEATURES)


def get_init_inputs():
    return [FEATURES]


def get_alt_inputs():
    return [_pair(3, FEATURES), _pair(1001, FEATURES)]
