"""Runtime integrity checks around the candidate's calls: the harness's own functions unchanged,
inputs unchanged, outputs plain tensors that own their storage, no threads left behind."""

from __future__ import annotations

import _thread
import builtins
import inspect
import os
import threading
import time

import torch

import benchmark.evaluate.correctness as correctness
import benchmark.evaluate.timing as timing


def _guarded() -> dict[str, object]:
    """The objects the harness relies on after the candidate is loaded."""
    items = {
        "time.perf_counter": time.perf_counter,
        "time.monotonic": time.monotonic,
        "correctness.compare_outputs": correctness.compare_outputs,
        "correctness.compare_tensor": correctness.compare_tensor,
        "timing.Timer._once": timing.Timer._once,
        "timing.Timer.time": timing.Timer.time,
        "timing.summarize": timing.summarize,
        "torch.manual_seed": torch.manual_seed,
        "torch.cuda.synchronize": torch.cuda.synchronize,
        "torch.cuda.Event": torch.cuda.Event,
        "torch.cuda.Event.record": torch.cuda.Event.record,
        "torch.cuda.Event.elapsed_time": torch.cuda.Event.elapsed_time,
        "torch.Tensor": torch.Tensor,
        "builtins.isinstance": builtins.isinstance,
        "builtins.type": builtins.type,
        "builtins.len": builtins.len,
        "builtins.max": builtins.max,
        "builtins.float": builtins.float,
    }
    for name in (
        "isclose",
        "isfinite",
        "isnan",
        "isinf",
        "where",
        "zeros_like",
        "nonzero",
        "equal",
        "randn",
        "rand",
        "randint",
        "empty",
    ):
        items[f"torch.{name}"] = getattr(torch, name)
    for name in (
        "abs",
        "to",
        "max",
        "all",
        "any",
        "sum",
        "clone",
        "detach",
        "__sub__",
        "__eq__",
        "__and__",
        "__or__",
        "__invert__",
        "item",
        "tolist",
        "__getitem__",
        "__setitem__",
        "copy_",
        "view",
    ):
        items[f"torch.Tensor.{name}"] = getattr(torch.Tensor, name)
    return items


def _identity(obj: object) -> int:
    """The innermost function's identity: torch itself wraps some functions lazily (importing
    torch._dynamo wraps torch.manual_seed), which must not read as tampering."""
    return id(inspect.unwrap(obj)) if callable(obj) else id(obj)


class HarnessSnapshot:
    """Identities of guarded objects, taken before the candidate loads, compared afterwards."""

    def __init__(self):
        self.ids = {k: _identity(v) for k, v in _guarded().items()}

    def changed(self) -> list[str]:
        now = _guarded()
        return sorted(k for k, v in now.items() if _identity(v) != self.ids.get(k))


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return bool(torch.equal(a, b))


class InputGuard:
    """Pristine copies of the tensor inputs, to detect in-place changes made by a call."""

    def __init__(self, inputs: list):
        self.inputs = inputs
        self.copies = [x.clone() if isinstance(x, torch.Tensor) else None for x in inputs]

    def mutated(self) -> list[int]:
        return [
            i
            for i, (x, c) in enumerate(zip(self.inputs, self.copies, strict=True))
            if c is not None and not _same(x, c)
        ]


def _storage_ptr(t: torch.Tensor) -> int | None:
    try:
        return t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return None


def aliases(outputs: list, inputs: list) -> bool:
    ins = {_storage_ptr(x) for x in inputs if isinstance(x, torch.Tensor)} - {None, 0}
    return any(isinstance(o, torch.Tensor) and _storage_ptr(o) in ins for o in outputs)


def output_problems(outputs: list, refs: list) -> list[tuple[str, str]]:
    """(flag, detail) for outputs that are not plain tensors with real storage, or have odd strides."""
    found = []
    for i, (o, r) in enumerate(zip(outputs, refs, strict=False)):
        if not isinstance(o, torch.Tensor):
            continue
        if type(o) is not torch.Tensor:
            found.append(("output_not_plain_tensor", f"output {i} is a {type(o).__qualname__}"))
        elif o.device.type == "meta" or _storage_ptr(o) is None:
            found.append(("output_not_plain_tensor", f"output {i} has no real storage"))
        elif (
            isinstance(r, torch.Tensor)
            and o.shape == r.shape
            and o.stride() != r.stride()
            and not o.is_contiguous()
        ):
            found.append(("output_layout", f"output {i} strides {o.stride()}, reference {r.stride()}"))
    return found


def os_thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


class ThreadWatch:
    """Counts Python threads started from now on (even ones that finish before anyone looks),
    by wrapping the low-level start function every Python thread goes through."""

    def __init__(self):
        self.started = 0
        for owner, name in (
            (_thread, "start_new_thread"),
            (threading, "_start_new_thread"),
            (threading, "_start_joinable_thread"),
            (_thread, "start_joinable_thread"),
        ):
            original = getattr(owner, name, None)
            if original is not None:
                setattr(owner, name, self._counting(original))

    def _counting(self, original):
        def start(*args, **kwargs):
            self.started += 1
            return original(*args, **kwargs)

        return start
