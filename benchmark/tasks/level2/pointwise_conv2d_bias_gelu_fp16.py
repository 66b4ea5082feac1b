"""1x1 (pointwise) convolution expanding channels 2x, with bias and GELU, in fp16: a GEMM over NCHW layout."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv2d", "pointwise", "bias", "activation"],
    "dtype": "float16",
    "difficulty": 1,
}

N, CIN, COUT, H, W = 64, 256, 512, 56, 56


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 1, dtype=torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.conv(x))


def get_inputs():
    return [torch.randn(N, CIN, H, W, dtype=torch.float16) * 3]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [
        [torch.randn(1, CIN, 1, 5, dtype=torch.float16) * 3],
        [torch.randn(4, CIN, 13, 17, dtype=torch.float16) * 3],
    ]
