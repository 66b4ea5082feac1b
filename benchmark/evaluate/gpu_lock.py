"""A cross-process reader-writer lock per GPU, so several evaluation lanes can share one device
without disturbing each other's timings.

Correctness work (reference outputs, candidate trials, the profiler pass) holds the lock shared:
many lanes at once. Timing holds it exclusive: nothing else runs on the device while a median is
measured. Writers are preferred (a turnstile stops new readers while a writer waits), so timing
never starves. Built on flock(2) over two files; a crashed process releases its locks with its
file descriptors. With no path, every operation is a no-op (one lane per device needs no lock).

Every holder also registers its process id beside the lock (`<path>.members/<pid>`), so the GPU
neighbour check (benchmark.evaluate.contention) knows which processes on the device play by these rules:
while one holds the lock exclusively, the others wait, and their contexts are not contention."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path


class DeviceLock:
    """One holder's handle on a device's lock (one per process). The lock files are opened here,
    before any candidate code runs, so the sandbox's write refusal never meets them."""

    def __init__(self, path: str | Path | None, on_wait: Callable[[bool], None] | None = None):
        self.path = Path(path) if path else None
        self.on_wait = on_wait  # told True when a wait for the lock begins and False when it ends
        self.waited_s = 0.0  # time spent waiting for the lock, for the verdict's phases
        self.held_alone_s = 0.0  # time holding it exclusively: what bounds the throughput of the lanes
        self._turnstile = self._main = -1
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._turnstile = os.open(f"{self.path}.turnstile", os.O_RDWR | os.O_CREAT, 0o600)
            self._main = os.open(f"{self.path}.main", os.O_RDWR | os.O_CREAT, 0o600)
            members = Path(f"{self.path}.members")
            members.mkdir(exist_ok=True)
            for entry in members.iterdir():  # holders that died; pruned before any candidate code runs
                if not _alive(entry.name):
                    entry.unlink(missing_ok=True)
            admit(self.path, os.getpid())

    def members(self) -> set[int]:
        """Process ids of the live holders of this device's lock. Read-only, and without os.kill, which
        the candidate's sandbox refuses: it runs again after the candidate has loaded."""
        if self.path is None:
            return set()
        return {int(e.name) for e in Path(f"{self.path}.members").iterdir() if _alive(e.name)}

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        if self.path is None:
            yield
            return
        t0 = time.monotonic()
        self._take(self._turnstile, fcntl.LOCK_EX)  # wait behind any writer already queued
        fcntl.flock(self._turnstile, fcntl.LOCK_UN)
        self._take(self._main, fcntl.LOCK_SH)
        self.waited_s += time.monotonic() - t0
        try:
            yield
        finally:
            fcntl.flock(self._main, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        if self.path is None:
            yield
            return
        t0 = time.monotonic()
        self._take(self._turnstile, fcntl.LOCK_EX)  # no new readers from here on
        self._take(self._main, fcntl.LOCK_EX)  # wait for the readers already in
        t1 = time.monotonic()
        self.waited_s += t1 - t0
        try:
            yield
        finally:
            fcntl.flock(self._main, fcntl.LOCK_UN)
            fcntl.flock(self._turnstile, fcntl.LOCK_UN)
            self.held_alone_s += time.monotonic() - t1

    def _take(self, fd: int, mode: int) -> None:
        """flock(2), telling `on_wait` around a wait (so a wait is charged to no limit)."""
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        if self.on_wait:
            self.on_wait(True)
        try:
            fcntl.flock(fd, mode)
        finally:
            if self.on_wait:
                self.on_wait(False)


def admit(path: str | Path | None, pid: int) -> None:
    """Register `pid` as playing by this lock: a candidate's process, admitted by the parent that started
    it, before it makes its CUDA context. Every GPU call it makes once loaded is its judge's request,
    made under the lock; what it does on the GPU while it imports is the one use outside the lock, so
    the other lanes' neighbour checks no longer wait out its context's start (docs/anti-cheat.md)."""
    if path:
        members = Path(f"{path}.members")
        members.mkdir(parents=True, exist_ok=True)  # the first holder may not have opened the lock yet
        (members / str(pid)).touch()


def dismiss(path: str | Path | None, pid: int) -> None:
    """Unregister an admitted process once it is gone (its parent reaped it): dismissed while it
    lived, its last kernels would count as a neighbour's in the other lanes' checks until NVML
    forgot them, and their timings would wait and run again."""
    if path:
        (Path(f"{path}.members") / str(pid)).unlink(missing_ok=True)


def _alive(name: str) -> bool:
    return name.isdigit() and Path(f"/proc/{name}").exists()
