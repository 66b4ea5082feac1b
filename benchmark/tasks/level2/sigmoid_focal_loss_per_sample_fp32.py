"""Per-sample sigmoid focal loss over many binary class logits (detection-style), summed over classes, in fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {
    "level": 2,
    "tags": ["reduction", "loss", "elementwise", "activation"],
    "dtype": "float32",
    "difficulty": 2,
}

N, CLASSES = 16384, 4096


class Model(nn.Module):
    def __init__(self, alpha: float, gamma: float):
        super().__init__()
        self.alpha, self.gamma = alpha, gamma

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        p = torch.sigmoid(logits)
        ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        return (alpha_t * (1 - p_t) ** self.gamma * ce).sum(dim=-1)


def _inputs(n, c):
    return [torch.randn(n, c) * 3, (torch.rand(n, c) < 0.1).to(torch.float32)]


def get_inputs():
    return _inputs(N, CLASSES)


def get_init_inputs():
    return [0.25, 2.0]


def get_alt_inputs():
    return [_inputs(1, 3), _inputs(7, 999)]
