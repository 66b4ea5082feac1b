"""Exploit (native, dispatch-key exclusion): plain ATen ops that the op census never sees.

The C++ forward is `x * 2 + 1` with torch's own operators, as in tests/cheats/cpp_calls_aten.py,
which the harness flags `aten_compute_op`: its TorchDispatchMode census routes every dispatcher
call on the thread through Python. Here the ops run inside a
`c10::impl::ExcludeDispatchKeyGuard` for the `Python` and `PythonTLSSnapshot` dispatch keys, the
keys through which any Python dispatch mode is reached, so the dispatcher goes straight to the CPU
kernels and the census records nothing. The result is right: the exploit's effect is a PyTorch
fallback that passes as a custom kernel."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>

torch::Tensor scale_shift(torch::Tensor x) {
    c10::impl::ExcludeDispatchKeyGuard unseen(
        c10::DispatchKeySet({c10::DispatchKey::Python, c10::DispatchKey::PythonTLSSnapshot}));
    return x * 2 + 1;
}
"""

ext = load_inline(
    name="rt_dispatch_key_exclude", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
