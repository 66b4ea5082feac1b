"""Sparsemax over each row (Euclidean projection onto the simplex: sort, cumulative sum, threshold), in fp32."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["softmax", "sort", "scan", "reduction"], "dtype": "float32", "difficulty": 3}

ROWS, D = 16384, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        z_sorted = torch.sort(z, dim=-1, descending=True).values
        k = torch.arange(1, z.shape[-1] + 1, device=z.device, dtype=z.dtype)
        cumsum = z_sorted.cumsum(dim=-1)
        support = (1 + k * z_sorted) > cumsum
        k_z = support.sum(dim=-1, keepdim=True)
        tau = (cumsum.gather(-1, k_z - 1) - 1) / k_z.to(z.dtype)
        return torch.clamp(z - tau, min=0)


def get_inputs():
    return [torch.randn(ROWS, D) * 2]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(1, 2) * 2], [torch.randn(3, 17, 999) * 2]]
