"""A cross-process reader-writer lock per GPU, so several evaluation lanes can share one device
without disturbing each other's timings.

Correctness work (reference outputs, candidate trials, the profiler pass) holds the lock shared:
many lanes at once. Timing holds it exclusive: nothing else runs on the device while a median is
measured. Writers are preferred (a turnstile stops new readers while a writer waits), so timing
never starves. Built on flock(2) over two files; a crashed process releases its locks with its
file descriptors. With no path, every operation is a no-op (one lane per device needs no lock)."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


class DeviceLock:
    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path else None
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)

    def _open(self, suffix: str) -> int:
        return os.open(f"{self.path}.{suffix}", os.O_RDWR | os.O_CREAT, 0o600)

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        if self.path is None:
            yield
            return
        turnstile, main = self._open("turnstile"), self._open("main")
        try:
            fcntl.flock(turnstile, fcntl.LOCK_EX)  # wait behind any writer already queued
            fcntl.flock(turnstile, fcntl.LOCK_UN)
            fcntl.flock(main, fcntl.LOCK_SH)
            yield
        finally:
            os.close(main)
            os.close(turnstile)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        if self.path is None:
            yield
            return
        turnstile, main = self._open("turnstile"), self._open("main")
        try:
            fcntl.flock(turnstile, fcntl.LOCK_EX)  # no new readers from here on
            fcntl.flock(main, fcntl.LOCK_EX)  # wait for the readers already in
            yield
        finally:
            os.close(main)
            os.close(turnstile)
