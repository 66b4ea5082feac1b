"""Conformer convolution module: LayerNorm, pointwise conv to 2C, GLU, depthwise conv1d (k=31), BN, SiLU, pointwise conv, residual."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "conv1d", "depthwise", "glu", "batchnorm", "speech"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, DIM, KERNEL = 16, 1024, 512, 31


class FrozenBatchNorm1d(nn.BatchNorm1d):
    """Batch norm with fixed, non-trivial running statistics: inference semantics whatever train() says."""

    def __init__(self, channels: int):
        super().__init__(channels)
        with torch.no_grad():
            self.weight.uniform_(0.5, 1.5)
            self.bias.normal_(0.0, 0.2)
            self.running_mean.normal_(0.0, 0.2)
            self.running_var.uniform_(0.5, 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias, False, 0.0, self.eps)


class Model(nn.Module):
    def __init__(self, dim: int, kernel: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.pointwise_in = nn.Conv1d(dim, 2 * dim, 1)
        self.depthwise = nn.Conv1d(dim, dim, kernel, padding=kernel // 2, groups=dim)
        self.bn = FrozenBatchNorm1d(dim)
        self.pointwise_out = nn.Conv1d(dim, dim, 1)
        nn.init.normal_(self.pointwise_out.weight, std=2.0 / dim**0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x).transpose(1, 2)  # (batch, dim, seq)
        h = F.glu(self.pointwise_in(h), dim=1)
        h = F.silu(self.bn(self.depthwise(h)))
        return x + self.pointwise_out(h).transpose(1, 2)


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, KERNEL]


def get_alt_inputs():
    return [[torch.randn(1, 5, DIM)], [torch.randn(3, 77, DIM)]]
