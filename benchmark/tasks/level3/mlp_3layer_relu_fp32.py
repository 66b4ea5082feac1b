"""Three-layer ReLU MLP over a batch of feature vectors: GEMMs with bias+ReLU epilogues to fuse."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["mlp", "gemm", "activation"], "dtype": "float32", "difficulty": 1}

BATCH, IN_DIM, HIDDEN, OUT_DIM = 4096, 1024, 2048, 512


class Model(nn.Module):
    def __init__(self, in_dim: int, hidden: int, out_dim: int):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, out_dim),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def get_inputs():
    return [torch.randn(BATCH, IN_DIM)]


def get_init_inputs():
    return [IN_DIM, HIDDEN, OUT_DIM]


def get_alt_inputs():
    return [[torch.randn(7, IN_DIM)], [torch.randn(129, IN_DIM)]]
