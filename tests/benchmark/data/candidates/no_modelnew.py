import torch


class SomethingElse(torch.nn.Module):
    def forward(self, x):
        return x * 2 + 1
