"""The channel between the judge and the candidate's process: one Unix socket the parent made and
gave each of them an end of. Messages are boundary records, one JSON line each; the judge's requests
carry the arena's descriptor once (SCM_RIGHTS). The candidate's process answers each request with
one reply, and sends one message unasked: `Loaded`, when its import ended.

The judge's side (`CandidateClient`) reads every reply as untrusted: bounded in size, decoded field
by field (benchmark.evaluate.boundary.decode), and a reply of the wrong kind or none at all ends the
sample (`CandidateLost`), never the judge. `RemoteArm` is the candidate's arm of an interleaved
timing (benchmark.evaluate.timing.Timer): each call is one request (the copy of its input set, then
the call),
and the judge keeps the wall time it saw around every timed call (its input set's copy included),
a bound on what the reported times may claim."""

from __future__ import annotations

import json
import os
import random
import select
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from benchmark.evaluate.boundary import (
    REPLIES,
    BoundaryError,
    Calibration,
    Failed,
    Loaded,
    Timed,
    Times,
    Warm,
    decode,
    encode,
)

MAX_MESSAGE = 8 * 2**20  # bytes of one JSON line; a longer one ends the sample
MAX_FDS = 4


class CandidateLost(Exception):
    """The candidate's process closed the channel, died, or broke the protocol."""


class CandidateRaised(Exception):
    """The candidate's code raised while serving a request; the text is its error."""


class Link:
    """One end of the channel: whole JSON lines in and out, descriptors alongside."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self._buffer = b""
        self._fds: list[int] = []

    def send(self, record: object, fds: list[int] | None = None) -> None:
        data = (encode(record) + "\n").encode()
        try:
            if fds:
                socket.send_fds(self.sock, [data[:1]], fds)
                data = data[1:]
            self.sock.sendall(data)
        except OSError as e:
            raise CandidateLost(f"the channel closed while sending ({e!r})") from e

    def receive(self, spin_s: float = 0.0) -> tuple[dict, list[int]]:
        """The next message as parsed JSON, and the descriptors that came with it. `spin_s`: poll
        that long before sleeping in the kernel, so a reply that comes quickly finds this process
        awake (a process woken from its sleep ran a 10 us CPU call twice as slow)."""
        if spin_s > 0 and b"\n" not in self._buffer:
            deadline = time.perf_counter() + spin_s
            while time.perf_counter() < deadline and not select.select([self.sock], [], [], 0)[0]:
                pass
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_MESSAGE:
                raise CandidateLost(f"a message longer than {MAX_MESSAGE} bytes")
            try:
                data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, MAX_FDS)
            except OSError as e:
                raise CandidateLost(f"the channel failed ({e!r})") from e
            self._fds.extend(fds)
            if not data:
                raise CandidateLost("the channel closed")
            self._buffer += data
        line, _, self._buffer = self._buffer.partition(b"\n")
        fds, self._fds = self._fds, []
        try:
            message = json.loads(line)
        except ValueError as e:
            raise CandidateLost(f"a message that is not JSON ({e})") from e
        if not isinstance(message, dict):
            raise CandidateLost("a message that is not an object")
        return message, fds

    def close(self) -> None:
        self.sock.close()


def read_record(message: dict, kinds: dict[str, type]) -> object:
    """The record a parsed message holds, of one of `kinds` (name -> class)."""
    cls = kinds.get(message.get("type"))
    if cls is None:
        raise BoundaryError(f"no message of type {message.get('type')!r}")
    return decode(cls, message)


class CandidateClient:
    """The judge's handle on the candidate's process: one request, one reply, in order."""

    def __init__(self, link: Link):
        self.link = link
        self.loaded: Loaded | None = None
        self.requests = 0

    def wait_loaded(self) -> Loaded:
        """The candidate's `Loaded`, sent when its import ended (it may still be compiling now)."""
        if self.loaded is None:
            self.loaded = self._read(Loaded)
        return self.loaded

    def ask(self, request: object, expect: type, fds: list[int] | None = None, spin_s: float = 0.0):
        """Send `request`; its reply, of type `expect` (`spin_s`: see Link.receive). The candidate's
        own error raises CandidateRaised; anything else unexpected, CandidateLost."""
        self.wait_loaded()
        self.requests += 1
        self.link.send(request, fds)
        return self._read(expect, spin_s)

    def _read(self, expect: type, spin_s: float = 0.0):
        message, fds = self.link.receive(spin_s)
        for fd in fds:  # the judge takes no descriptor from the candidate's process
            _close(fd)
        try:
            record = read_record(message, REPLIES)
        except BoundaryError as e:
            raise CandidateLost(f"a malformed reply ({e})") from e
        if isinstance(record, Failed):
            raise CandidateRaised(record.error)
        if not isinstance(record, expect):
            raise CandidateLost(f"a {type(record).__name__} where a {expect.__name__} was due")
        return record


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


@dataclass
class RemoteArm:
    """The candidate's arm of an interleaved timing: calls made in its process on the timing set
    `i % n_sets`, raw times reported back; the judge keeps the wall time of every timed request
    (`walls_ms`, beside the times claimed, `claimed_ms`). `on_timed(k)` runs after each timed call,
    with its set's index (the random recheck)."""

    client: CandidateClient
    calibration: Calibration
    n_sets: int
    on_timed: Callable[[int], None] | None = None
    empty: bool = False  # the candidate's process makes empty calls (the reference timed beside it idle)
    spin_s: float = 0.0  # how long this side polls for each reply before sleeping (TimingConfig.spin_ms)
    walls_ms: list[float] = field(default_factory=list)
    claimed_ms: list[float] = field(default_factory=list)

    @property
    def overhead_ms(self) -> float:
        return self.calibration.overhead_ms

    @property
    def gap_floor_ms(self) -> float:
        return self.calibration.gap_floor_ms

    def warm(self, i: int, covered: bool, cover_cycles: int) -> tuple[float, float]:
        t = self.client.ask(
            Warm(i % self.n_sets, covered, cover_cycles, not self.empty), Times, spin_s=self.spin_s
        )
        return _time_value(t.first), _time_value(t.second)

    def timed(self, i: int, behind_flush: bool, cover_cycles: int) -> tuple[float, float]:
        t0 = time.perf_counter()
        t = self.client.ask(
            Timed(i % self.n_sets, behind_flush, cover_cycles, not self.empty), Times, spin_s=self.spin_s
        )
        self.walls_ms.append((time.perf_counter() - t0) * 1e3)
        stream_ms, gap_ms = _time_value(t.first), _time_value(t.second)
        self.claimed_ms.append(stream_ms + gap_ms)
        if self.on_timed is not None:
            self.on_timed(i % self.n_sets)
        return stream_ms, gap_ms


def _time_value(ms: float) -> float:
    """A reported time, bounded to what a time can be (a NaN or negative claim reads as 0)."""
    return ms if 0.0 <= ms < 1e9 else 0.0


RECHECK_SHARE = 0.125  # chance that a timed call's output is fetched and checked
RECHECK_MAX = 24  # rechecks per timing at most


class Rechecks:
    """Which timed calls' outputs the judge fetches: each with chance RECHECK_SHARE, drawn after the
    call (so nothing in the candidate's process can know it before), at most RECHECK_MAX, and at least
    one per timing (`settle` fetches the last call's when none was drawn)."""

    def __init__(self, fetch: Callable[[int], None], seed: int | None = None):
        self.fetch = fetch
        self.rng = random.Random(seed)
        self.done = 0
        self.last: int | None = None

    def after_call(self, k: int) -> None:
        self.last = k
        if self.done < RECHECK_MAX and self.rng.random() < RECHECK_SHARE:
            self.done += 1
            self.fetch(k)

    def settle(self) -> None:
        if self.done == 0 and self.last is not None:
            self.done += 1
            self.fetch(self.last)
