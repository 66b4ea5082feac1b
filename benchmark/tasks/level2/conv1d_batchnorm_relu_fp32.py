"""1D convolution, inference-mode BatchNorm1d, ReLU (a sequence-model conv block), in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["conv", "conv1d", "norm", "batchnorm", "activation"],
    "dtype": "float32",
    "difficulty": 1,
}

N, CIN, COUT, L = 32, 128, 256, 2048


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm1d(cout)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.3, 0.3)
            self.bn.running_var.uniform_(0.2, 0.6)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bn = self.bn
        y = F.batch_norm(
            self.conv(x), bn.running_mean, bn.running_var, bn.weight, bn.bias, training=False, eps=bn.eps
        )
        return torch.relu(y)


def get_inputs():
    return [torch.randn(N, CIN, L)]


def get_init_inputs():
    return [CIN, COUT]


def get_alt_inputs():
    return [[torch.randn(1, CIN, 1)], [torch.randn(3, CIN, 777)]]
