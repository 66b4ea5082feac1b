"""One-hot encode 65536 class labels over 1000 classes into an fp32 matrix."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 1, "tags": ["indexing", "one_hot"], "dtype": "float32", "difficulty": 2}

N, CLASSES = 65536, 1000


class Model(nn.Module):
    def __init__(self, num_classes: int):
        super().__init__()
        self.num_classes = num_classes

    def forward(self, labels: torch.Tensor) -> torch.Tensor:
        return F.one_hot(labels, self.num_classes).to(torch.float32)


def get_inputs():
    return [torch.randint(0, CLASSES, (N,))]


def get_init_inputs():
    return [CLASSES]


def get_alt_inputs():
    return [[torch.randint(0, CLASSES, (3,))], [torch.randint(0, CLASSES, (7, 33))]]
