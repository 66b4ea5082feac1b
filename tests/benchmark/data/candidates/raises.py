import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        raise ValueError("kernel launch failed: invalid configuration")
