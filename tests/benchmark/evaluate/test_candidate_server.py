"""The candidate's process reports what it saw of itself: native threads its forward left running
count, the profiler's own tracing threads do not, however often the judge profiles."""

from __future__ import annotations

import types

import pytest
import torch

from benchmark.evaluate import candidate_server
from benchmark.evaluate.anticheat.integrity import StateDigest, ThreadWatch
from benchmark.evaluate.boundary import CandidateJob, Profile
from benchmark.evaluate.candidate_server import CandidateServer


class _Profile:
    def start(self) -> None:
        pass

    def call(self, fn, *args) -> None:
        fn(*args)

    def stop(self):
        return [], True


@pytest.mark.parametrize(
    ("counts", "profiles", "left"),
    [
        ([10], 1, False),
        ([10, 12], 2, False),  # the second profile starts beside the first one's tracing threads
        ([11], 2, True),  # one more than after the first call, before any profile
    ],
    ids=["one-profile", "profiled-again", "thread-left-running"],
)
def test_native_threads_left_are_counted_before_the_first_profile(monkeypatch, counts, profiles, left):
    counts = iter(counts + [99] * 4)  # later counts: the profiler's threads, never the baseline
    monkeypatch.setattr(candidate_server, "os_thread_count", lambda: next(counts))
    monkeypatch.setattr(candidate_server, "KernelProfile", _Profile)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    server = CandidateServer(CandidateJob("", "", "cpu"), link=None, model_cls=torch.nn.Identity)
    server.threads, server.digest, server.violations = ThreadWatch(), StateDigest(), []
    server.model, server.sets = torch.nn.Identity(), ((),)
    server.arena = types.SimpleNamespace(unpack=lambda specs, device: [torch.ones(2)])
    server.os_threads_after_first_call = 10
    for _ in range(profiles):
        for step in ("start", "call", "stop"):
            server.profiled(Profile(step, 0))
    assert server.observations().native_threads_left is left


def test_it_polls_for_the_next_timed_call_as_long_as_the_judge_asks(monkeypatch):
    """While timing, the candidate's process polls for the judge's next request for the spin the
    timing asked for (TimingConfig.spin_ms, sent with the timing sets) and sleeps at once otherwise."""
    import json

    from benchmark.evaluate.boundary import Done, Ping, Timed, TimingSets, encode
    from benchmark.evaluate.link import CandidateLost

    script = [TimingSets((), (), spin_s=0.005), Timed(0, True, 100), Ping(), Timed(0, True, 100)]
    spins: list[float] = []

    class _Link:
        def receive(self, spin_s: float = 0.0):
            spins.append(spin_s)
            if not script:
                raise CandidateLost("the channel closed")
            return json.loads(encode(script.pop(0))), []

        def send(self, record) -> None:
            pass

    server = CandidateServer(CandidateJob("", "", "cpu"), link=_Link(), model_cls=torch.nn.Identity)
    real = server.handle
    monkeypatch.setattr(server, "handle", lambda r, fds: Done() if isinstance(r, Timed) else real(r, fds))
    server.serve(ThreadWatch(), StateDigest(), [])
    assert spins == [0.0, 0.0, 0.005, 0.0, 0.005]
