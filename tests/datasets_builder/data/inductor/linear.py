"""Linear layer then ReLU: Inductor's Triton GEMM template with a fused epilogue."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm"], "dtype": "float32", "difficulty": 1}


class Model(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.fc = nn.Linear(i, o)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return [32, 48]


def get_alt_inputs():
    return [[torch.randn(5, 32)]]
