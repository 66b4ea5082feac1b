"""Cheat: autograd again, with nothing a static rule can type: grad mode switched on through
torch.nn's submodule that imports torch, the forward in tensor methods, then `.backward()`."""

import torch


class ModelNew(torch.nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = torch.nn.Parameter(1 + 0.1 * torch.randn(features))

    def forward(self, x, dy):
        with torch.nn.modules.module.torch.enable_grad():
            x = x.detach().requires_grad_()
            weight = self.weight.detach().requires_grad_()
            y = x * x.pow(2).mean(-1, keepdim=True).add(1e-6).rsqrt() * weight
            y.backward(dy)
        return x.grad, weight.grad
