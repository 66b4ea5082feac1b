"""GroupNorm (32 groups) with affine parameters followed by swish, on NCHW feature maps in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["norm", "groupnorm", "activation"], "dtype": "float32", "difficulty": 2}

N, C, H, W, GROUPS = 32, 256, 64, 64, 32


class Model(nn.Module):
    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 2.0)
            self.norm.bias.normal_(0.0, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(x)
        return y * torch.sigmoid(y)


def get_inputs():
    return [torch.randn(N, C, H, W) * 2 + 0.5]


def get_init_inputs():
    return [C, GROUPS]


def get_alt_inputs():
    return [[torch.randn(1, C, 1, 3) * 2 + 0.5], [torch.randn(3, C, 13, 9) * 2 + 0.5]]
