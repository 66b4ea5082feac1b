"""Chamfer distance between two batched 3D point clouds: all pairwise squared distances, nearest neighbour both ways, means, in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 2,
    "tags": ["reduction", "elementwise", "broadcast", "pointcloud"],
    "dtype": "float32",
    "difficulty": 2,
}

B, NA, NB = 8, 2048, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        d = (a[:, :, None, :] - b[:, None, :, :]).pow(2).sum(-1)  # [B, NA, NB]
        return d.amin(dim=2).mean(dim=1) + d.amin(dim=1).mean(dim=1)


def _inputs(b, na, nb):
    return [torch.rand(b, na, 3), torch.rand(b, nb, 3) * 1.2 - 0.1]


def get_inputs():
    return _inputs(B, NA, NB)


def get_init_inputs():
    return []


def get_alt_inputs():
    return [_inputs(1, 1, 5), _inputs(3, 100, 257)]
