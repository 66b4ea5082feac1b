"""3x3x3 convolution, inference-mode BatchNorm3d, ReLU6 (a video-network layer), in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv3d", "norm", "batchnorm", "activation"],
    "dtype": "bfloat16",
    "difficulty": 1,
}

N, CIN, COUT, D, H, W = 16, 32, 64, 16, 56, 56


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv3d(cin, cout, 3, padding=1, bias=False, dtype=torch.bfloat16)
        self.bn = nn.BatchNorm3d(cout, dtype=torch.bfloat16)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.3, 0.3)
            self.bn.running_var.uniform_(0.05, 0.2)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bn = self.bn
        y = F.batch_norm(
            self.conv(x), bn.running_mean, bn.running_var, bn.weight, bn.bias, training=False, eps=bn.eps
        )
        return F.relu6(y)


def get_inputs():
    return [torch.randn(N, CIN, D, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [
        [torch.randn(1, CIN, 2, 3, 4, dtype=torch.bfloat16)],
        [torch.randn(2, CIN, 5, 15, 9, dtype=torch.bfloat16)],
    ]
