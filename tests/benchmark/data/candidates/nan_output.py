import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = x * 2 + 1
        y[0, 0] = float("nan")
        return y
