"""Weight-standardized convolution: normalise each filter to zero mean and unit variance, 3x3 conv, GELU, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 2, "tags": ["conv", "conv2d", "norm", "activation"], "dtype": "float32", "difficulty": 2}

N, CIN, COUT, H, W = 32, 64, 128, 56, 56


class Model(nn.Module):
    def __init__(self, cin: int, cout: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(cout, cin, 3, 3) + torch.randn(cout, 1, 1, 1))
        self.bias = nn.Parameter(torch.randn(cout) * 0.1)
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.weight
        mean = w.mean(dim=(1, 2, 3), keepdim=True)
        var = w.var(dim=(1, 2, 3), unbiased=False, keepdim=True)
        w = (w - mean) * torch.rsqrt(var + self.eps) / (w[0].numel() ** 0.5)
        return F.gelu(F.conv2d(x, w, self.bias, padding=1) * 2)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, 1e-5]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 3, 3)], [torch.randn(2, CIN, 10, 27)]]
