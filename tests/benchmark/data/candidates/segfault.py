import ctypes

import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        ctypes.string_at(0)  # null dereference: SIGSEGV
        return x
