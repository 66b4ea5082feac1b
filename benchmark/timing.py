"""The one timing protocol, used for the reference, torch.compile and the candidate alike.

On CUDA each timed call is bracketed by a device-wide synchronization, so work the call leaves on
any stream is counted; the L2 cache is flushed by a write of twice its size before every call;
calls repeat for at least a minimum time and until the median is stable (its estimated relative
standard error is under the target), or until a time cap is reached. The minimum time and a
time-based warm-up matter for short kernels: stopping after a few dozen calls let the speedup of
one 0.14 ms kernel drift by 10% between runs on the H200. A call's time is measured by events on
the current stream (start, and end right after the call), which is precise; an event recorded after
the device-wide synchronize shows how much work finished only after that stream was done (work on
side streams). That trailing work is added to the call's time when it exceeds the bracket's own
latency (calibrated on empty calls) by more than 10 us or 5%, and the anti-cheat compares its size
with the reference's. On CPU the same loop runs with a monotonic clock, minus the cost of an empty
call."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

from benchmark.verdict import TimingStats


@dataclass(frozen=True)
class TimingConfig:
    warmup_calls: int = 3
    warmup_seconds: float = 0.1  # keep warming up (clocks, caches, lazy init) at least this long
    min_runs: int = 10
    min_seconds: float = 0.1  # time at least this long, so short calls are sampled many times
    max_runs: int = 1000
    target_rel_err: float = 0.005  # relative standard error of the median at which to stop
    max_seconds: float = 3.0  # cap on timed wall time per model
    flush_l2: bool = True
    contention_wait_s: float = 10.0  # before a timed phase, wait this long for other GPU processes to leave


def median_rel_err(samples: list[float]) -> float:
    """Robust relative standard error of the median: 1.2533 * 1.4826 * MAD / sqrt(n) / median."""
    if len(samples) < 2:
        return math.inf
    med = statistics.median(samples)
    if med <= 0:
        return math.inf
    mad = statistics.median(abs(s - med) for s in samples)
    return 1.2533 * 1.4826 * mad / math.sqrt(len(samples)) / med


def summarize(samples: list[float]) -> TimingStats:
    return TimingStats(
        runs=len(samples),
        median_ms=statistics.median(samples),
        mean_ms=statistics.fmean(samples),
        std_ms=statistics.pstdev(samples) if len(samples) > 1 else 0.0,
        min_ms=min(samples),
        max_ms=max(samples),
        rel_err=median_rel_err(samples),
    )


class Timer:
    """Times calls on one device; `call(i)` runs the i-th timed call (the caller rotates inputs
    and keeps outputs; anything it does outside `call` is not timed)."""

    def __init__(self, device: str, config: TimingConfig = TimingConfig()):
        self.device = torch.device(device)
        self.config = config
        self.cuda = self.device.type == "cuda"
        self._flush_buf = None
        if self.cuda and config.flush_l2:
            l2 = torch.cuda.get_device_properties(self.device).L2_cache_size or 64 * 2**20
            self._flush_buf = torch.empty(2 * l2 // 4, dtype=torch.int32, device=self.device)
        self.last_stream_gap_ms = 0.0  # median trailing device work (beyond the bracket) in the last time()
        empty = [self._once(lambda: None) for _ in range(25)]
        self.overhead_ms = 0.0 if self.cuda else statistics.median(t for t, _ in empty)
        self._gap_floor_ms = statistics.median(g for _, g in empty)

    def _once(self, fn: Callable[[], object]) -> tuple[float, float]:
        """(ms from start to the current stream's end, ms of device work that trailed it).

        The trailing work is what a device-wide synchronize still waits for once the host has seen the
        current stream finish, timed on the host between those two moments. The host's own wake-up
        after the stream finishes falls outside that window, so a busy CPU cannot pass for side-stream
        work (timing the window with a device event after the synchronize counted the wake-up too)."""
        if not self.cuda:
            t0 = time.perf_counter()
            fn()
            return (time.perf_counter() - t0) * 1e3, 0.0
        if self._flush_buf is not None:
            self._flush_buf.zero_()
        start = torch.cuda.Event(enable_timing=True)
        stream_end = torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        fn()
        stream_end.record()
        stream_end.synchronize()
        t_stream = time.perf_counter()
        torch.cuda.synchronize()  # device-wide: whatever side streams still run
        trailing_ms = (time.perf_counter() - t_stream) * 1e3
        return start.elapsed_time(stream_end), trailing_ms

    def time(self, call: Callable[[int], object], prepare: Callable[[int], object] | None = None) -> TimingStats:
        """`prepare(i)` runs untimed before call i (e.g. to clone a fresh input set)."""
        cfg = self.config
        i, t_warm = 0, time.monotonic() + cfg.warmup_seconds
        while i < cfg.warmup_calls or time.monotonic() < t_warm:
            i += 1
            if prepare:
                prepare(-i)
            call(-i)
            if self.cuda:
                torch.cuda.synchronize()
        samples: list[float] = []
        gaps: list[float] = []
        t0 = time.monotonic()
        i = 0
        while i < cfg.max_runs:
            if prepare:
                prepare(i)
            stream_ms, gap = self._once(lambda i=i: call(i))
            trailing = max(gap - self._gap_floor_ms, 0.0)
            if trailing <= max(0.01, 0.05 * stream_ms):
                trailing = 0.0  # the bracket's own jitter, not work
            samples.append(max(stream_ms + trailing - self.overhead_ms, 1e-6))
            gaps.append(trailing)
            i += 1
            elapsed = time.monotonic() - t0
            stable = elapsed >= cfg.min_seconds and median_rel_err(samples) < cfg.target_rel_err
            if i >= cfg.min_runs and (stable or elapsed > cfg.max_seconds):
                break
        self.last_stream_gap_ms = statistics.median(gaps)
        return summarize(samples)
