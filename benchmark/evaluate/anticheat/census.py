"""Runtime op census: every aten op dispatched while the candidate's forward runs.

A TorchDispatchMode sees ops called from Python and from C++ extensions alike (the mode routes
every dispatcher call on this thread through Python), so `torch::matmul` inside a load_inline
extension is caught as surely as `x @ w` in Python.

Ops that touch no data are not counted: those whose every tensor argument is a FakeTensor or a
plain meta tensor. A tracing compiler dispatches them on its first call (Helion traces a kernel's
body under a FakeTensorMode before it generates Triton); they produce no values, so nothing a
candidate returns can come from them. Exact types are checked, so a tensor subclass cannot pass
for one."""

from __future__ import annotations

from collections import Counter

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from benchmark.evaluate.anticheat.allowlist import ATEN_PLUMBING


def _dataless(args, kwargs) -> bool:
    """Whether an op's tensor arguments are all fake or meta (and there is at least one)."""
    tensors = [a for a in tree_leaves((args, kwargs)) if isinstance(a, torch.Tensor)]
    return bool(tensors) and all(
        type(t) is FakeTensor or (type(t) is torch.Tensor and t.is_meta) for t in tensors
    )


class OpCensus(TorchDispatchMode):
    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # Otherwise torch wraps __torch_dispatch__ to disable dynamo, which imports torch._dynamo
        # (about 4 s) on the first call of every sample; nothing here is ever compiled.
        return False

    def __init__(self):
        super().__init__()
        self.ops: Counter[str] = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not _dataless(args, kwargs):
            self.ops[func.overloadpacket.__name__] += 1
        return func(*args, **(kwargs or {}))

    @property
    def compute_ops(self) -> list[str]:
        return sorted(
            op for op in self.ops if op.rstrip("_") not in ATEN_PLUMBING and op not in ATEN_PLUMBING
        )


def census(fn, *args) -> tuple[object, list[str]]:
    """Run fn(*args) under the census; return its output and the compute ops it dispatched."""
    with OpCensus() as mode:
        out = fn(*args)
    return out, mode.compute_ops
