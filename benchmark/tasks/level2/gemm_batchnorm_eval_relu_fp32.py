"""Linear layer, inference-mode BatchNorm1d (running statistics), then ReLU, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["gemm", "norm", "batchnorm", "activation"],
    "dtype": "float32",
    "difficulty": 1,
}

M, K, N = 2048, 4096, 4096


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.3, 0.3)
            self.bn.running_var.uniform_(0.2, 0.6)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.normal_(0.0, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bn = self.bn
        y = F.batch_norm(
            self.linear(x), bn.running_mean, bn.running_var, bn.weight, bn.bias, training=False, eps=bn.eps
        )
        return torch.relu(y)


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N]


def get_alt_inputs():
    return [[torch.randn(3, K)], [torch.randn(97, K)]]
