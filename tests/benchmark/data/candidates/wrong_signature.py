import torch


class ModelNew(torch.nn.Module):
    def __init__(self, hidden_size, extra):
        super().__init__()

    def forward(self, x):
        return x * 2 + 1
