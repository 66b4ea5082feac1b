"""DenseNet dense block: four BN-ReLU-1x1-BN-ReLU-3x3 layers, each concatenating its new features onto all earlier ones."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["conv_block", "densenet", "concat", "batchnorm"], "dtype": "float32", "difficulty": 3}

BATCH, IN_CH, GROWTH, LAYERS, SIZE = 32, 64, 32, 4, 56


class FrozenBatchNorm2d(nn.BatchNorm2d):
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


class DenseLayer(nn.Module):
    def __init__(self, in_ch: int, growth: int):
        super().__init__()
        self.bn1 = FrozenBatchNorm2d(in_ch)
        self.conv1 = nn.Conv2d(in_ch, 4 * growth, 1, bias=False)
        self.bn2 = FrozenBatchNorm2d(4 * growth)
        self.conv2 = nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2(F.relu(self.bn2(self.conv1(F.relu(self.bn1(x))))))


class Model(nn.Module):
    def __init__(self, in_ch: int, growth: int, layers: int):
        super().__init__()
        self.layers = nn.ModuleList([DenseLayer(in_ch + i * growth, growth) for i in range(layers)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = x
        for layer in self.layers:
            features = torch.cat((features, layer(features)), dim=1)
        return features


def get_inputs():
    return [torch.randn(BATCH, IN_CH, SIZE, SIZE)]


def get_init_inputs():
    return [IN_CH, GROWTH, LAYERS]


def get_alt_inputs():
    return [[torch.randn(1, IN_CH, 3, 3)], [torch.randn(2, IN_CH, 15, 10)]]
