"""The profile pass's evidence: whose kernels did the work, and on which stream."""

from __future__ import annotations

import pytest

from benchmark.evaluate.anticheat.kernels import KernelEvidence, kernel_flags, profile_forward


def test_work_on_another_stream_is_flagged():
    ev = KernelEvidence(custom={"my_kernel": 40.0}, library={}, other_streams={"my_kernel": 40.0})
    assert [name for name, _ in kernel_flags(ev)] == ["side_stream"]


def test_own_kernels_on_the_current_stream_raise_no_flag():
    assert kernel_flags(KernelEvidence(custom={"my_kernel": 40.0}, library={"at::native::copy": 1.0})) == []


@pytest.mark.gpu
@pytest.mark.parametrize("side", [False, True])
def test_the_profile_tells_the_current_stream_from_a_side_stream(side):
    import torch

    x = torch.ones(1 << 20, device="cuda")
    stream = torch.cuda.Stream() if side else torch.cuda.current_stream()

    def forward(x):
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            y = x * 2.0
        torch.cuda.current_stream().wait_stream(stream)
        return y

    forward(x)
    ev = profile_forward(forward, x)
    assert ev.library, ev  # the multiply ran and was seen
    assert bool(ev.other_streams) is side, ev


def test_the_device_lock_is_held_around_the_profiled_call_alone(monkeypatch):
    """The profiler's start and stop (seconds of host work) run outside the device lock."""
    import contextlib
    import types

    import torch
    import torch.profiler

    order: list[str] = []

    class Profile:
        def __init__(self, activities):
            pass

        def start(self):
            order.append("profiler start")

        def stop(self):
            order.append("profiler stop")

        def events(self):
            return []

    @contextlib.contextmanager
    def lock():
        order.append("lock")
        yield
        order.append("unlock")

    monkeypatch.setattr(torch.profiler, "profile", Profile)
    monkeypatch.setattr(torch, "cuda", types.SimpleNamespace(synchronize=lambda: None, _sleep=lambda n: None))
    ev = profile_forward(lambda: order.append("call"), device_lock=lock)
    assert order == ["profiler start", "lock", "call", "unlock", "profiler stop"]
    assert ev == KernelEvidence({}, {}, {})
