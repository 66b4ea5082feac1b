import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return (x * 2 + 1).flatten()
