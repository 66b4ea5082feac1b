"""What each sample in flight in this process is doing now (its phase, whether it waits for the
device, for how long), so that a progress display can tell a slow sample from a hung one.
Process-local and thread-safe: the verifier's build and execution threads write, a display reads."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from benchmark.evaluate.boundary import PHASES

# a phase in a word, for a progress bar: the judge's phases, and before them the candidate's
# compilation in the build pool
SHORT = {**{p: p for p in PHASES}, "build": "init", "observations": "wrap-up", "compile": "compile"}


@dataclass
class Sample:
    """One sample in flight: `phase` is a key of SHORT; `waiting` while it waits for the device."""

    label: str
    phase: str
    started: float = field(default_factory=time.monotonic)
    waiting: bool = False

    def enter(self, phase: str) -> None:
        self.phase = phase

    def wait(self, waiting: bool) -> None:
        self.waiting = waiting

    def describe(self, now: float) -> str:
        doing = "waits for the device" if self.waiting else SHORT.get(self.phase, self.phase)
        return f"{self.label} {doing} {now - self.started:.0f}s"


_lock = threading.Lock()
_ids = itertools.count()
_active: dict[int, Sample] = {}


def label(task_id: str, sample: int) -> str:
    return f"{task_id}#{sample}"


@contextmanager
def track(label: str, phase: str) -> Iterator[Sample]:
    """Count `label` as in flight, in `phase`, for the block's duration."""
    sample, key = Sample(label, phase), next(_ids)
    with _lock:
        _active[key] = sample
    try:
        yield sample
    finally:
        with _lock:
            del _active[key]


def in_flight() -> list[Sample]:
    """The samples in flight, the longest-running first."""
    with _lock:
        return sorted(_active.values(), key=lambda s: s.started)
