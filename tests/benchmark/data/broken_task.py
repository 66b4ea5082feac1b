"""A task whose module raises on import."""

import torch
import torch.nn as nn

raise RuntimeError("this task file is broken on purpose")


class Model(nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    return [torch.randn(4)]


def get_init_inputs():
    return []
