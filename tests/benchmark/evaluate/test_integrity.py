"""The candidate's process fingerprints what its serving code reaches before the candidate loads
(anticheat.integrity.StateDigest): a replaced function, a swapped code object, a changed constant of
ours, a method written over an inherited one, a patched torch function the code names; and nothing
changes by serving honest calls."""

from __future__ import annotations

import types

import pytest
import torch

import benchmark.evaluate.candidate_server  # noqa: F401 - the digest's reach starts at our modules
from benchmark.evaluate import timing, transfer
from benchmark.evaluate.anticheat.integrity import StateDigest, reachable_state


def test_the_digest_reaches_our_code_and_what_it_names_outside():
    state = reachable_state()
    assert "benchmark.evaluate.timing.CallTimer.once" in state
    assert any(k.endswith("torch.cuda.synchronize") for k in state)
    assert any(k.endswith("time.perf_counter") for k in state)
    assert any(k.endswith("Tensor.copy_") for k in state)


@pytest.mark.parametrize(
    ("patch", "named"),
    [
        (lambda mp: mp.setattr(timing, "LAUNCH_COVER_MS", 0.0), "timing.LAUNCH_COVER_MS"),
        (lambda mp: mp.setattr(timing.CallTimer, "once", lambda *a, **k: (0.0, 0.0)), "CallTimer.once"),
        (
            lambda mp: mp.setattr(
                timing.CallTimer.warm, "__code__", (lambda self, fn, c, m: (0.0, 0.0)).__code__
            ),
            "CallTimer.warm",
        ),
        (lambda mp: mp.setattr(torch.cuda, "synchronize", lambda *a: None), "torch.cuda.synchronize"),
        (lambda mp: mp.setattr(torch.Tensor, "copy_", lambda self, other: self), "Tensor.copy_"),
        (lambda mp: mp.setattr(transfer, "aligned", lambda n: n), "transfer.aligned"),
    ],
    ids=["constant", "method", "code", "torch-function", "inherited-method", "helper"],
)
def test_a_change_is_named(monkeypatch, patch, named):
    digest = StateDigest()
    patch(monkeypatch)
    changed = digest.changed()
    assert any(named in k for k in changed), changed


def test_serving_calls_changes_nothing():
    from benchmark.evaluate.timing import CallTimer

    digest = StateDigest()
    timer = CallTimer("cpu")
    x = torch.randn(16)
    for _ in range(3):
        timer.once(lambda: x * 2)
    types.SimpleNamespace(x=x)
    assert digest.changed() == []
