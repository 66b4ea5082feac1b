"""Backward of a ResNet basic block in training mode, y = relu(x + bn2(conv2(relu(bn1(conv1(x)))))),
two 3x3 convolutions over 64 channels of 56x56 maps with batch-statistics BatchNorm, in fp32: the
gradients of the input and of the six parameters from the input and the upstream gradient. Both
convolutions and both normalizations are recomputed, then four convolution gradients, two BN
backwards and two ReLU masks: the unit of a ResNet-18's training step."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 3,
    "tags": ["backward", "conv_block", "conv2d", "batchnorm", "residual"],
    "dtype": "float32",
    "difficulty": 3,
}

N, C, H, W = 32, 64, 56, 56


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels, track_running_stats=False)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels, track_running_stats=False)
        for bn in (self.bn1, self.bn2):
            nn.init.normal_(bn.weight, 1.0, 0.1)
            nn.init.normal_(bn.bias, 0.0, 0.1)

    def forward(self, x: torch.Tensor, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Autograd is the reference (forward recomputed with batch statistics, then backward), with
        # grad mode switched on under the harness's no_grad. Returns dx, then the parameters'
        # gradients in named_parameters() order (conv1, bn1 weight and bias, conv2, bn2 weight and bias).
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            # (functional on the leaf x: torch's FLOP counter, which counts the floor, cannot track a module
            # called on an autograd leaf under autograd.grad)
            h = F.relu(self.bn1(F.conv2d(x, self.conv1.weight, padding=1)))
            y = F.relu(x + self.bn2(self.conv2(h)))
            return torch.autograd.grad(y, (x, *self.parameters()), dy)


def _pair(n, h, w):
    return [torch.randn(n, C, h, w), torch.randn(n, C, h, w)]


def get_inputs():
    return _pair(N, H, W)


def get_init_inputs():
    return [C]


def get_alt_inputs():
    return [_pair(2, 3, 5), _pair(3, 17, 11)]
