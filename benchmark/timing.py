"""The one timing protocol, used for the reference, torch.compile and the candidate alike.

On CUDA each timed call is bracketed by a device-wide synchronization, so work the call leaves on
any stream is counted; the L2 cache is flushed by a write of twice its size before every call;
calls repeat until the median is stable (its estimated relative standard error is under the
target) or a time cap is reached. The fixed cost of the bracket itself is measured on an empty
call and subtracted. An extra event recorded on the current stream right after the call shows how
much device work finished only after that stream was done (work on side streams): the anti-cheat
compares that gap with the reference's. On CPU the same loop runs with a monotonic clock."""

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
    min_runs: int = 10
    max_runs: int = 500
    target_rel_err: float = 0.005  # relative standard error of the median at which to stop
    max_seconds: float = 3.0  # cap on timed wall time per model
    flush_l2: bool = True


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
        self.overhead_ms = 0.0
        self.last_stream_gap_ms = 0.0  # median (device-wide end - current-stream end) of the last time()
        empty = [self._once(lambda: None) for _ in range(25)]
        self.overhead_ms = statistics.median(t for t, _ in empty)
        self._gap_floor_ms = statistics.median(g for _, g in empty)

    def _once(self, fn: Callable[[], object]) -> tuple[float, float]:
        """(elapsed ms, ms by which device-wide completion trailed the current stream's)."""
        if not self.cuda:
            t0 = time.perf_counter()
            fn()
            return (time.perf_counter() - t0) * 1e3, 0.0
        if self._flush_buf is not None:
            self._flush_buf.zero_()
        start = torch.cuda.Event(enable_timing=True)
        stream_end = torch.cuda.Event(enable_timing=True)
        done = torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        fn()
        stream_end.record()
        torch.cuda.synchronize()  # device-wide: side streams finish inside the timed region
        done.record()
        done.synchronize()
        return start.elapsed_time(done), stream_end.elapsed_time(done)

    def time(self, call: Callable[[int], object], prepare: Callable[[int], object] | None = None) -> TimingStats:
        """`prepare(i)` runs untimed before call i (e.g. to clone a fresh input set)."""
        cfg = self.config
        for i in range(cfg.warmup_calls):
            if prepare:
                prepare(-1 - i)
            call(-1 - i)
        samples: list[float] = []
        gaps: list[float] = []
        t_end = time.monotonic() + cfg.max_seconds
        i = 0
        while i < cfg.max_runs:
            if prepare:
                prepare(i)
            raw, gap = self._once(lambda i=i: call(i))
            samples.append(max(raw - self.overhead_ms, 1e-6))
            gaps.append(max(gap - self._gap_floor_ms, 0.0))
            i += 1
            if i >= cfg.min_runs and (median_rel_err(samples) < cfg.target_rel_err or time.monotonic() > t_end):
                break
        self.last_stream_gap_ms = statistics.median(gaps)
        return summarize(samples)
