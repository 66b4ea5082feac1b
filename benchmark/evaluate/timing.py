"""The one timing protocol, used for the reference, torch.compile and the candidate alike.

Each timed call is bracketed by a device-wide synchronization (work left on any stream counts) and
preceded by an L2 flush (a write of twice its size); on CUDA it is launched behind a short
device-side wait, so the host's launch latency is not what is timed. Calls repeat for at least a
minimum time and until the median's relative standard error is under the target, or a cap; a
time-based warm-up runs the same way until every arm's call time has settled. Trailing work on
side streams (what a synchronize still waits for once the call's stream is done) is added to the
call's time and compared with the reference's by the anti-cheat. The candidate is timed
interleaved with the reference, one call of each per round: the speedup is the median of the
per-round ratios, its spread over blocks of rounds recorded. On the CPU the same loop runs with a
monotonic clock, less the cost of an empty call. The measurements behind each rule: dev/LOG.md."""

from __future__ import annotations

import ctypes
import dataclasses
import json
import math
import os
import statistics
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import torch

from benchmark.verdict import TimingStats


def share_cores(device: torch.device) -> None:
    """On the CPU, this process's intra-op threads for timing: half the cores. The judge and the
    candidate's process take turns call by call, each polling for the other's message on a core of
    its own (TimingConfig.spin_ms); with every core each, a short call's thread team
    waits on the core the other side polls on (a tiny linear layer timed 2.2x slower than alone,
    dev/LOG.md 2026-12-07). Both arms get the same share, so the ratio stays fair."""
    if device.type == "cpu":
        torch.set_num_threads(max(1, len(os.sched_getaffinity(0)) // 2))


_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4  # glibc's mallopt parameters (malloc.h)


def keep_host_memory() -> None:
    """Keep freed host memory in this process's heap for the next allocation, as CUDA's caching
    allocator keeps device memory: by default glibc maps each large buffer afresh and the kernel
    faults its pages in on first touch, most of a large CPU operator's time, and whether a process
    reused memory instead varied, so the same code timed up to 2.5x apart in the judge and the
    candidate's process (dev/LOG.md 2026-12-07). The warm-up absorbs the heap's growth. No-op
    without glibc."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        mallopt(_M_MMAP_MAX, 0)  # large buffers from the heap, not from fresh mappings
        mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)  # and the heap's free top kept, not given back


def prepare_host(device: torch.device) -> None:
    """On the CPU, what each side does as its timing starts: half the cores, freed memory kept."""
    if device.type == "cpu":
        share_cores(device)
        keep_host_memory()


@dataclass(frozen=True)
class TimingConfig:
    warmup_calls: int = 3
    warmup_seconds: float = 0.1  # keep warming up (clocks, caches, lazy init) at least this long
    # then until every arm's call time has settled (`settled`: the median of its last quarter of
    # warm-up calls within steady_tol of the quarter before), for at most steady_max_seconds more
    # per arm; 0 turns the check off
    steady_tol: float = 0.005
    steady_max_seconds: float = 0.5
    min_runs: int = 10
    min_seconds: float = 0.1  # time at least this long, so short calls are sampled many times
    max_runs: int = 1000
    target_rel_err: float = 0.005  # relative standard error of the median at which to stop
    max_seconds: float = 3.0  # cap on timed wall time per model
    flush_l2: bool = True
    contention_wait_s: float = 10.0  # before a timed phase, wait this long for other GPU processes to leave
    # On CUDA: the call is launched while the device is still busy with the L2 flush and a
    # device-side wait longer than the call's own launch (`Timer.cover_ms`), so the host's launch
    # latency, which moves from process to process, is not timed on an idle GPU. False: the call is
    # launched on an idle device, its launch latency timed (the protocol before the pool).
    launch_behind_flush: bool = True
    # Interleaved timings tried again (the device lock released between tries) while the reference in
    # them runs slower than alone beyond REFERENCE_DRIFT_CAP; the try with the fastest reference counts.
    drift_retries: int = 2
    # While timing, the judge and the candidate's process each poll this long for the other's message
    # before sleeping in the kernel (benchmark.evaluate.link.Link.receive): a process woken from its
    # sleep launches slower, so a short call's time would carry the wake-up.
    spin_ms: float = 0.2

    def brief(self) -> TimingConfig:
        """A short timing of the same protocol: enough for a bound (the reference's time alone, which
        only caps the interleaved one), a third of the calls of a full timing, and no warm-up beyond
        one call: it is taken right after a full timing, on a warm device."""
        return dataclasses.replace(
            self,
            warmup_calls=1,
            warmup_seconds=0.0,
            steady_max_seconds=0.0,
            min_runs=3,
            min_seconds=0.0,
            max_seconds=self.max_seconds / 3,
        )


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


LAUNCH_COVER_MS = 0.1  # shortest device-side wait queued ahead of a call launched behind the flush:
# longer than a host's launch of one kernel (about 5-40 us from PyTorch or Triton)
LAUNCH_COVER_MAX_MS = 2.0  # longest: a call whose launches take longer is host-bound, and timed so
LAUNCH_COVER_FACTOR = 1.5  # the wait covers this multiple of the slowest arm's median launch time
IDLE_SHARE = 0.5  # and at least this share of the slowest arm's median call: under the power cap a
# compute-bound call runs as fast as the GPU's recent power lets it, so the idle time between calls is
# set by the call, not by how fast this process launches


def launch_cover_ms(launch_ms: float, call_ms: float) -> float:
    """The device-side wait ahead of each call launched behind the flush, from the slowest arm's
    median launch (host) and call (device) time in the warm-up."""
    return min(
        max(LAUNCH_COVER_FACTOR * launch_ms, IDLE_SHARE * call_ms, LAUNCH_COVER_MS), LAUNCH_COVER_MAX_MS
    )


TRACE_ENV = "SOLBENCH_TIMING_TRACE"  # a folder: with it set, each candidate timing's rounds come back
# from the child and are written there (`write_trace`), so a run whose speedup stands apart can be read
# round by round (scripts/bench_harness.py sets it for its repeats; nothing else does)


def trace_record(timed: Interleaved) -> dict:
    """One interleaved timing, round by round, as the child sends it back under TRACE_ENV."""
    return {
        "ratio": timed.ratio,
        "ratio_spread": timed.ratio_spread,
        "cover_ms": timed.cover_ms,
        "warmup": dataclasses.asdict(timed.warmup),
        "samples_ms": timed.samples,
        "round_starts": timed.round_starts,
    }


def write_trace(record: dict) -> None:
    """Write a child's `trace_record` into the TRACE_ENV folder, one file per timing named by when it
    arrived (the parent writes it: the child's sandbox lets it write nowhere outside its own folder)."""
    folder = os.environ[TRACE_ENV]
    os.makedirs(folder, exist_ok=True)
    name = f"{time.time_ns()}-{uuid.uuid4().hex[:6]}.json"
    with open(os.path.join(folder, name), "w") as f:
        json.dump(record, f)


STEADY_MIN_BLOCK = 5  # warm-up calls per quarter before `settled` judges an arm


def settled(times_ms: list[float], tol: float) -> bool:
    """Whether a run of calls has stopped speeding up or slowing down: the median of its last quarter
    within `tol` (relative) of the quarter before it."""
    b = len(times_ms) // 4
    if b < STEADY_MIN_BLOCK:
        return False
    before, last = statistics.median(times_ms[-2 * b : -b]), statistics.median(times_ms[-b:])
    return abs(last - before) <= tol * before


@dataclass(frozen=True)
class Warmup:
    rounds: int  # warm-up rounds (one call of each arm)
    seconds: float
    settled: bool | None  # every arm's call time settled (`settled`); None where the check is off


@dataclass(frozen=True)
class Interleaved:
    stats: list[TimingStats]  # one per arm, in the arms' order
    ratio: float | None  # with two arms: the median over rounds of arm 0 / arm 1 within the round
    ratio_spread: float | None  # with two arms: the spread of that ratio within the timing
    samples: list[list[float]]  # each arm's ms per round, in round order: how its time moved over the timing
    round_starts: list[float]  # time.monotonic() at the start of each timed round
    warmup: Warmup
    cover_ms: float  # the device-side wait each timed call was launched behind (`launch_cover_ms`)
    stream_gaps_ms: list[float]  # per arm, the median device work that trailed its current stream
    rounds_s: float = 0.0  # wall time of the timed rounds (the warm-up's is `warmup.seconds`)


class CallTimer:
    """One call's time, measured where the call runs: the one part of the protocol that runs in the
    candidate's process for the candidate (benchmark.evaluate.candidate_server), kept small because
    that process is the candidate's. It brackets a call (the L2 flush, on CUDA the device-side wait it is
    launched behind, events on the current stream, a device-wide synchronize) and returns raw numbers;
    every statistic is made from them elsewhere (`Timer`, in the judge)."""

    def __init__(self, device: str | torch.device, flush_l2: bool = True):
        self.device = torch.device(device)
        self.cuda = self.device.type == "cuda"
        self._flush_buf = None
        if self.cuda and flush_l2:
            l2 = torch.cuda.get_device_properties(self.device).L2_cache_size or 64 * 2**20
            self._flush_buf = torch.empty(2 * l2 // 4, dtype=torch.int32, device=self.device)
        self._cycles_per_ms = 0.0  # of `torch.cuda._sleep`, at the SMs' highest clock (`cycles`)
        self._max_clock = False  # whether that clock is NVML's (else the fastest probed)
        empty = [self.once(lambda: None) for _ in range(25)]
        # what the bracket itself costs: subtracted on the CPU, the floor of trailing work on CUDA
        self.overhead_ms = 0.0 if self.cuda else statistics.median(t for t, _ in empty)
        self.gap_floor_ms = statistics.median(g for _, g in empty)

    def once(
        self, fn: Callable[[], object], behind_flush: bool = False, cover_cycles: int = 1
    ) -> tuple[float, float]:
        """(ms from start to the current stream's end, ms a device-wide synchronize still waited once
        the host had seen that stream finish: work on other streams). The host's own wake-up after
        the stream finishes falls outside that window, so a busy CPU cannot pass for side-stream work.
        `behind_flush`: launched while the device still runs the flush and a wait of `cover_cycles`
        (`cycles`, converted once by the judge's Timer for every arm)."""
        if not self.cuda:
            t0 = time.perf_counter()
            touch(fn())
            return (time.perf_counter() - t0) * 1e3, 0.0
        start = torch.cuda.Event(enable_timing=True)
        stream_end = torch.cuda.Event(enable_timing=True)
        if behind_flush:
            torch.cuda.synchronize()
        if self._flush_buf is not None:
            self._flush_buf.zero_()
        if behind_flush:
            torch.cuda._sleep(max(cover_cycles, 1))
        else:
            torch.cuda.synchronize()
        start.record()
        fn()
        stream_end.record()
        stream_end.synchronize()
        t_stream = time.perf_counter()
        torch.cuda.synchronize()  # device-wide: whatever side streams still run
        trailing_ms = (time.perf_counter() - t_stream) * 1e3
        return start.elapsed_time(stream_end), trailing_ms

    def warm(self, fn: Callable[[], object], covered: bool, cover_cycles: int) -> tuple[float, float]:
        """One warm-up call: (ms the host took to launch it, ms it took: on CUDA the device's, on CPU
        the host's); `covered`: made as a timed call is (`once` behind the flush)."""
        host: list[float] = []

        def launch() -> None:
            t = time.perf_counter()
            fn()
            host.append((time.perf_counter() - t) * 1e3)

        if covered:
            took, _ = self.once(launch, behind_flush=True, cover_cycles=cover_cycles)
            return host[0], took
        if not self.cuda:
            launch()
            return host[0], host[0]
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        launch()
        end.record()
        torch.cuda.synchronize()
        return host[0], start.elapsed_time(end)

    def cycles(self, ms: float) -> int:
        """`ms` as cycles of `torch.cuda._sleep` (a spin on the SM clock) at the highest clock the
        device's SMs can run (NVML's), so the wait lasts at least `ms` at any clock it runs. The
        judge's Timer makes this conversion once per cover and sends the cycles to every arm. Without
        NVML: the fastest clock probed so far, each probe queued behind a wait of its own so that
        its launch falls outside the events (a probe timed from its own launch read an H100 at
        1.66 GHz, and a 0.1 ms cover lasted 0.094 ms)."""
        if self._cycles_per_ms == 0.0:
            # imported here: only the judge converts, and the candidate's process loads no NVML code
            from benchmark.evaluate.contention import max_sm_clock_mhz

            mhz = max_sm_clock_mhz(self.device)
            self._max_clock = mhz is not None
            self._cycles_per_ms = 1e3 * mhz if mhz else 0.0
        if not self._max_clock:
            probe = 200_000
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(probe)  # the launches below queue behind it (the first also loads the kernel)
            start.record()
            torch.cuda._sleep(probe)
            end.record()
            end.synchronize()
            self._cycles_per_ms = max(self._cycles_per_ms, probe / max(start.elapsed_time(end), 1e-3))
        return max(int(ms * self._cycles_per_ms), 1)


PAGE = 4096


def touch(out: object) -> None:
    """Read one value of every page of the CPU tensors a call returned, inside its timed window: an
    output whose memory is filled only when first read (a fault handler that waits for work left to
    a thread) is then timed whole. CUDA outputs need none: the device-wide synchronize bounds them."""
    if isinstance(out, list | tuple):
        for o in out:
            touch(o)
    elif isinstance(out, torch.Tensor) and out.device.type == "cpu" and out.numel():
        flat = torch.Tensor.reshape(torch.Tensor.detach(out), -1)
        if out.is_floating_point() and out.element_size() == 1:  # fp8: no sum on the CPU; its bytes
            flat = torch.Tensor.view(flat, torch.uint8)
        torch.Tensor.sum(flat[:: max(1, PAGE // out.element_size())])


class Arm(Protocol):
    """One timed model, wherever it runs: a `LocalArm` in this process, or the candidate's calls in its
    own process (benchmark.evaluate.link.RemoteArm). `overhead_ms` and `gap_floor_ms` are its
    CallTimer's calibration."""

    overhead_ms: float
    gap_floor_ms: float

    def warm(self, i: int, covered: bool, cover_cycles: int) -> tuple[float, float]:
        """Prepare and make warm-up call i: (launch ms, call ms), as `CallTimer.warm`."""
        ...

    def timed(self, i: int, behind_flush: bool, cover_cycles: int) -> tuple[float, float]:
        """Prepare (untimed) and make timed call i: (stream ms, trailing ms), as `CallTimer.once`."""
        ...


class LocalArm:
    """`call(i)` timed in this process; `prepare(i)` runs untimed before each call (to clone a fresh
    input set, say)."""

    def __init__(
        self, timer: CallTimer, call: Callable[[int], object], prepare: Callable[[int], object] | None = None
    ):
        self.timer, self.call, self.prepare = timer, call, prepare
        self.overhead_ms, self.gap_floor_ms = timer.overhead_ms, timer.gap_floor_ms

    def warm(self, i: int, covered: bool, cover_cycles: int) -> tuple[float, float]:
        if self.prepare:
            self.prepare(i)
        return self.timer.warm(lambda: self.call(i), covered, cover_cycles)

    def timed(self, i: int, behind_flush: bool, cover_cycles: int) -> tuple[float, float]:
        if self.prepare:
            self.prepare(i)
        return self.timer.once(lambda: self.call(i), behind_flush, cover_cycles)


class Timer:
    """The timing protocol's loop and statistics over arms (`Arm`): warm-up, rounds, the stopping rule,
    medians and the paired ratio. It runs in the judge; only `CallTimer` runs beside the timed code."""

    def __init__(self, device: str, config: TimingConfig = TimingConfig()):
        self.device = torch.device(device)
        self.config = config
        self.cuda = self.device.type == "cuda"
        self.calls = CallTimer(self.device, config.flush_l2)
        # the device-side wait ahead of each call behind the flush, set per timing (`cover`)
        self.cover_ms, self.cover_cycles = LAUNCH_COVER_MS, 1

    def arm(self, call: Callable[[int], object], prepare: Callable[[int], object] | None = None) -> LocalArm:
        return LocalArm(self.calls, call, prepare)

    def time(
        self,
        call: Callable[[int], object],
        prepare: Callable[[int], object] | None = None,
        config: TimingConfig | None = None,
    ) -> TimingStats:
        """`prepare(i)` runs untimed before call i (e.g. to clone a fresh input set); `config`
        replaces the timer's own for this timing."""
        return self.interleaved([self.arm(call, prepare)], config).stats[0]

    def cover(self, launch_ms: list[list[float]], call_ms: list[list[float]]) -> None:
        """Size the wait from the slowest arm's median launch and call in the warm-up so far
        (`launch_cover_ms`), converted to cycles here, once, for every arm (on CUDA)."""
        self.cover_ms = launch_cover_ms(
            max(statistics.median(m) for m in launch_ms), max(statistics.median(c) for c in call_ms)
        )
        if self.cuda:
            self.cover_cycles = self.calls.cycles(self.cover_ms)

    def interleaved(
        self, arms: Sequence[Arm | tuple[Callable, Callable | None]], config: TimingConfig | None = None
    ) -> Interleaved:
        """Time several arms side by side: one call of each per round, the order reversed every other
        round, so clock, thermal and host drift fall on every arm alike and their ratio holds.
        Warm-up, the stopping rule and the cap apply to each arm as in a single timing. An arm given
        as `(call, prepare)` runs in this process."""
        arms = [self.arm(*a) if isinstance(a, tuple) else a for a in arms]
        cfg, n = config or self.config, len(arms)
        i, t_start = 0, time.monotonic()
        t_warm = t_start + cfg.warmup_seconds * n
        t_cap = t_warm + cfg.steady_max_seconds * n
        launch_ms: list[list[float]] = [[] for _ in arms]  # host time of each warm-up call's launches
        call_ms: list[list[float]] = [[] for _ in arms]  # each warm-up call's time (on CUDA: the device's)
        first = max(cfg.warmup_calls, 1)  # calls made back to back, to size the cover
        while True:
            i += 1
            # After the first calls, warm up as the timed rounds run (the flush, then the call behind a
            # cover sized from the calls so far), so the clocks settle at the timed rounds' duty cycle.
            covered = self.cuda and cfg.launch_behind_flush and i > first
            if covered and i == first + 1:
                self.cover(launch_ms, call_ms)
            for arm, launches, calls in zip(arms, launch_ms, call_ms, strict=True):
                launch, took = arm.warm(-i, covered, self.cover_cycles)
                launches.append(launch)
                calls.append(took)
            now = time.monotonic()
            if i < cfg.warmup_calls or now < t_warm:
                continue
            steady = all(settled(c, cfg.steady_tol) for c in call_ms) if cfg.steady_max_seconds > 0 else None
            if steady is not False or now >= t_cap:
                break
        warmup = Warmup(i, now - t_start, steady)
        self.cover(launch_ms, call_ms)
        samples: list[list[float]] = [[] for _ in arms]
        gaps: list[list[float]] = [[] for _ in arms]
        round_starts: list[float] = []
        t0 = time.monotonic()
        i = 0
        while i < cfg.max_runs:
            round_starts.append(time.monotonic())
            for k in range(n) if i % 2 == 0 else reversed(range(n)):
                arm = arms[k]
                stream_ms, gap = arm.timed(i, cfg.launch_behind_flush, self.cover_cycles)
                trailing = max(gap - arm.gap_floor_ms, 0.0)
                if trailing <= max(0.01, 0.05 * stream_ms):
                    trailing = 0.0  # the bracket's own jitter, not work
                samples[k].append(max(stream_ms + trailing - arm.overhead_ms, 1e-6))
                gaps[k].append(trailing)
            i += 1
            elapsed = time.monotonic() - t0
            stable = elapsed >= cfg.min_seconds * n and all(
                median_rel_err(s) < cfg.target_rel_err for s in samples
            )
            if i >= cfg.min_runs and (stable or elapsed > cfg.max_seconds * n):
                break
        return Interleaved(
            [summarize(s) for s in samples],
            paired_ratio(*samples) if n == 2 else None,
            ratio_spread(samples) if n == 2 else None,
            samples,
            round_starts,
            warmup,
            self.cover_ms,
            [statistics.median(g) for g in gaps],
            time.monotonic() - t0,
        )


REFERENCE_DRIFT_CAP = 1.1  # the interleaved reference counts at most this much slower than alone


def drifted(timed: Interleaved, alone_ms: float | None) -> bool:
    """Whether the interleaved reference (arm 0) ran slower than the reference alone beyond the cap."""
    return alone_ms is not None and timed.stats[0].median_ms > REFERENCE_DRIFT_CAP * alone_ms


def least_drifted(
    attempt: Callable[[], Interleaved], alone_ms: Callable[[], float | None], retries: int
) -> tuple[Interleaved, int]:
    """The interleaved timing, tried again up to `retries` times while its reference drifted beyond
    the cap (`drifted`) of its time alone (`alone_ms()`, asked once, after the first try), and the
    number of tries: a host-bound reference drifts at random with the host's load. A candidate that
    does slow the reference slows it in every try; the try with the fastest reference counts, so
    retrying never gains a candidate more than the cap allows."""
    best, tries = attempt(), 1
    alone = alone_ms()
    while tries <= retries and drifted(best, alone):
        timed, tries = attempt(), tries + 1
        if timed.stats[0].median_ms < best.stats[0].median_ms:
            best = timed
    return best, tries


SPREAD_BLOCKS = 5  # consecutive blocks of rounds whose ratios give the spread


def paired_ratio(a: list[float], b: list[float]) -> float:
    """The median over rounds of a[i] / b[i], the two arms' calls of one round: where calls run at
    one of two speeds at random, a ratio of the arms' medians jumps with which speed held each arm's
    majority, while the per-round ratios mix the speeds symmetrically around the true ratio; a slow
    spell that falls on both calls of a round cancels in it too."""
    return statistics.median(x / y for x, y in zip(a, b, strict=True))


def ratio_spread(samples: list[list[float]], blocks: int = SPREAD_BLOCKS) -> float | None:
    """(max - min) / median of the paired ratio (`paired_ratio`) over consecutive blocks of rounds:
    how far the measured speedup moves within one timing (None with too few rounds)."""
    a, b = samples
    size = len(a) // blocks
    if size < 2:
        return None
    ratios = [paired_ratio(a[j * size : (j + 1) * size], b[j * size : (j + 1) * size]) for j in range(blocks)]
    mid = statistics.median(ratios)
    return (max(ratios) - min(ratios)) / mid if mid > 0 else None
