"""Runtime op census: every aten op dispatched while the candidate's forward runs.

A TorchDispatchMode sees ops called from Python and from C++ extensions alike (the mode routes
every dispatcher call on this thread through Python), so `torch::matmul` inside a load_inline
extension is caught as surely as `x @ w` in Python."""

from __future__ import annotations

from collections import Counter

from torch.utils._python_dispatch import TorchDispatchMode

from benchmark.evaluate.anticheat.allowlist import ATEN_PLUMBING


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
