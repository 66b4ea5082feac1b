import statistics
import subprocess
import sys
import time

import pytest
import torch

from benchmark.evaluate import timing as timing_module
from benchmark.evaluate.timing import (
    LAUNCH_COVER_MAX_MS,
    LAUNCH_COVER_MS,
    Timer,
    TimingConfig,
    median_rel_err,
    share_cores,
)


def _runs(**cfg) -> int:
    timer = Timer("cpu", TimingConfig(warmup_calls=1, warmup_seconds=0.0, steady_max_seconds=0.0, **cfg))
    return timer.time(lambda i: None).runs


def test_stops_at_min_runs_once_the_median_is_stable():
    assert _runs(min_runs=3, min_seconds=0.0, target_rel_err=float("inf")) == 3


def test_short_calls_are_timed_for_at_least_min_seconds():
    assert _runs(min_runs=3, min_seconds=0.05, target_rel_err=1.0, max_runs=100_000) > 100


def test_max_runs_caps_the_loop():
    assert _runs(min_runs=3, min_seconds=10.0, max_runs=50, max_seconds=10.0) == 50


def test_warmup_calls_are_not_timed():
    seen = []
    Timer(
        "cpu",
        TimingConfig(
            warmup_calls=4,
            warmup_seconds=0.0,
            steady_max_seconds=0.0,
            min_runs=5,
            min_seconds=0.0,
            target_rel_err=1.0,
        ),
    ).time(seen.append)
    assert seen == [-1, -2, -3, -4, 0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("samples", "finite"), [([1.0], False), ([1.0, 1.0, 1.0], True), ([0.0, 0.0], False)]
)
def test_median_rel_err(samples, finite):
    assert (median_rel_err(samples) < float("inf")) is finite


def _interleaved_config(**cfg) -> TimingConfig:
    return TimingConfig(
        **{
            "warmup_calls": 1,
            "warmup_seconds": 0.0,
            "steady_max_seconds": 0.0,
            "min_runs": 10,
            "min_seconds": 0.0,
            "target_rel_err": 1.0,
            "max_runs": 10,
            **cfg,
        }
    )


def test_interleaved_alternates_the_arms_and_reverses_every_other_round():
    order = []
    timer = Timer("cpu", _interleaved_config(min_runs=4, max_runs=4))
    out = timer.interleaved(
        [(lambda i: order.append(("a", i)), None), (lambda i: order.append(("b", i)), None)]
    )
    timed = order[2:]  # after one warm-up call of each
    assert timed == [("a", 0), ("b", 0), ("b", 1), ("a", 1), ("a", 2), ("b", 2), ("b", 3), ("a", 3)]
    assert [s.runs for s in out.stats] == [4, 4]
    assert len(out.stream_gaps_ms) == 2
    assert 0 < out.rounds_s < 5  # the timed rounds' wall time, the warm-up's apart


def test_interleaved_ratio_holds_when_both_arms_slow_down_alike():
    """Drift that falls on both arms (here every call slows as the rounds go on) leaves the ratio."""
    import time as _time

    calls = {"n": 0}

    def arm(cost_s: float):
        def call(i: int) -> None:
            calls["n"] += 1
            _time.sleep(cost_s * (1 + calls["n"] / 40))

        return call, None

    out = Timer("cpu", _interleaved_config(min_runs=20, max_runs=20)).interleaved([arm(0.004), arm(0.002)])
    ratio = out.stats[0].median_ms / out.stats[1].median_ms
    assert 1.6 < ratio < 2.4
    assert out.ratio_spread is not None and out.ratio_spread < 0.5


def test_ratio_spread_needs_enough_rounds():
    from benchmark.evaluate.timing import ratio_spread

    assert ratio_spread([[1.0] * 5, [1.0] * 5]) is None
    assert ratio_spread([[2.0] * 10, [1.0] * 10]) == 0.0
    assert ratio_spread([[2.0] * 8 + [3.0] * 2, [1.0] * 10]) == pytest.approx(0.5)


def test_speedup_caps_a_reference_slowed_beside_the_candidate():
    from benchmark.evaluate.harness import speedup
    from benchmark.evaluate.timing import REFERENCE_DRIFT_CAP
    from benchmark.verdict import TimingStats

    def t(ms: float) -> TimingStats:
        return TimingStats(runs=10, median_ms=ms, mean_ms=ms, std_ms=0.0, min_ms=ms, max_ms=ms, rel_err=0.0)

    assert speedup(t(2.0), t(2.0), t(1.0)) == 2.0
    assert speedup(t(2.1), t(2.0), t(1.0)) == pytest.approx(2.1)  # drift within the cap counts
    assert speedup(t(6.0), t(2.0), t(1.0)) == pytest.approx(
        2.0 * REFERENCE_DRIFT_CAP
    )  # sabotage gains 10% at most
    assert speedup(t(2.0), None, t(1.0)) == 2.0
    assert speedup(None, t(2.0), t(1.0)) is None


def _interleaved(ref_ms: float, cand_ms: float = 1.0, cover_ms: float = 0.1):
    from benchmark.evaluate.timing import Interleaved, Warmup
    from benchmark.verdict import TimingStats

    def t(ms: float) -> TimingStats:
        return TimingStats(runs=10, median_ms=ms, mean_ms=ms, std_ms=0.0, min_ms=ms, max_ms=ms, rel_err=0.0)

    return Interleaved(
        [t(ref_ms), t(cand_ms)],
        ref_ms / cand_ms,
        0.0,
        [[ref_ms], [cand_ms]],
        [0.0],
        Warmup(1, 0.0, True),
        cover_ms,
        [0.0, 0.0],
    )


@pytest.mark.parametrize(
    ("refs", "alone", "tries", "counted"),
    [
        ([2.0, 9.0], 2.0, 1, 2.0),  # within the cap: timed once
        ([3.0, 2.1, 9.0], 2.0, 2, 2.1),  # a host-load spell: the second try counts
        ([3.0, 2.9, 3.2], 2.0, 3, 2.9),  # slowed in every try: the fastest reference counts, still capped
        ([3.0, 9.0], None, 1, 3.0),  # no time alone: nothing to drift from
    ],
)
def test_least_drifted_times_again_while_the_reference_drifts(refs, alone, tries, counted):
    from benchmark.evaluate.timing import least_drifted

    given = iter(refs)
    timed, n = least_drifted(lambda: _interleaved(next(given)), lambda: alone, retries=2)
    assert (n, timed.stats[0].median_ms) == (tries, counted)


def test_least_drifted_without_retries_times_once():
    from benchmark.evaluate.timing import least_drifted

    given = iter([5.0, 1.0])
    timed, n = least_drifted(lambda: _interleaved(next(given)), lambda: 1.0, retries=0)
    assert (n, timed.stats[0].median_ms) == (1, 5.0)


def test_brief_config_times_a_third_of_the_calls():
    full = TimingConfig(
        warmup_calls=1,
        warmup_seconds=0.0,
        steady_max_seconds=0.0,
        min_runs=9,
        min_seconds=0.0,
        target_rel_err=float("inf"),  # stop at the floor of runs, however noisy the machine
    )
    timer = Timer("cpu", full)
    assert timer.time(lambda i: None, config=full.brief()).runs == 3
    assert timer.time(lambda i: None).runs == 9


@pytest.mark.parametrize(
    ("host_ms", "cover_ms"), [(0.0, LAUNCH_COVER_MS), (1.0, 1.5), (4.0, LAUNCH_COVER_MAX_MS)]
)
def test_the_launch_cover_is_sized_from_the_warm_ups_launch_times(host_ms, cover_ms):
    """The device-side wait covers 1.5x the slowest arm's median launch time, between the floor and the cap."""
    import time

    def call(i: int) -> None:
        t_end = time.perf_counter() + host_ms / 1e3
        while time.perf_counter() < t_end:
            pass

    timer = Timer("cpu", TimingConfig(warmup_calls=5, warmup_seconds=0.0, min_runs=2, min_seconds=0.0))
    timer.interleaved([(lambda i: None, None), (call, None)])
    assert timer.cover_ms == pytest.approx(cover_ms, rel=0.15)


@pytest.mark.gpu
@pytest.mark.parametrize("host_us", [50, 400])
def test_launch_behind_flush_hides_the_hosts_launch_latency(host_us):
    """A call whose host side takes `host_us` before its one tiny kernel: the default protocol times
    that host work on an idle GPU; launched behind the flush, the device-side wait (sized from the
    warm-up's launch times, so longer than the fixed 0.1 ms minimum for 400 us) covers it."""
    import dataclasses
    import time

    import torch

    x = torch.ones(1024, device="cuda")

    def call(i: int) -> None:
        t_end = time.perf_counter() + host_us * 1e-6
        while time.perf_counter() < t_end:
            pass
        x.add_(1.0)

    config = TimingConfig(warmup_seconds=0.05, min_runs=50, min_seconds=0.05, max_seconds=0.5)
    timer = Timer("cuda", config)
    idle = timer.time(call, config=dataclasses.replace(config, launch_behind_flush=False)).median_ms
    behind = timer.time(call, config=dataclasses.replace(config, launch_behind_flush=True)).median_ms
    assert idle >= 0.9 * host_us / 1e3, idle
    assert behind < 0.03, (behind, idle, timer.cover_ms)
    assert timer.cover_ms >= 1.4 * host_us / 1e3, timer.cover_ms


def test_interleaved_keeps_every_rounds_sample_in_order(monkeypatch):
    """A fake clock that only the calls advance: arm a's call i takes i + 1 ms, arm b's ten times that."""
    import time as _time
    import types

    from benchmark.evaluate import timing

    now = [0.0]
    monkeypatch.setattr(
        timing, "time", types.SimpleNamespace(perf_counter=lambda: now[0], monotonic=_time.monotonic)
    )

    def arm(scale: float):
        def call(i: int) -> None:
            now[0] += scale * (i + 1) * 1e-3 if i >= 0 else 0.0

        return call, None

    out = Timer("cpu", _interleaved_config(min_runs=7, max_runs=7)).interleaved([arm(1.0), arm(10.0)])
    assert out.samples[0] == pytest.approx([1, 2, 3, 4, 5, 6, 7])
    assert out.samples[1] == pytest.approx([10, 20, 30, 40, 50, 60, 70])


def test_settled_compares_the_last_two_quarters_of_the_calls():
    from benchmark.evaluate.timing import settled

    assert not settled([1.0] * 19, 0.01)  # too few calls to judge
    assert settled([5.0] * 20 + [1.0] * 20, 0.01)  # slow at first, steady over the last half
    assert not settled([1.0] * 30 + [1.5] * 10, 0.01)  # still moving
    assert settled([1.0] * 30 + [1.004] * 10, 0.005)


def _slowing_down(ramp_calls: int, start_s: float, end_s: float):
    """A call whose time moves linearly from start_s to end_s over its first ramp_calls calls."""
    n = {"calls": 0}

    def call(i: int) -> None:
        n["calls"] += 1
        left = max(0.0, 1 - n["calls"] / ramp_calls)
        time.sleep(end_s + (start_s - end_s) * left)

    return call


def test_warmup_goes_on_until_the_call_time_settles():
    """The first 40 calls run from four times slower down to steady (a GPU whose clocks still react
    to the load): the warm-up outlasts the ramp, so no timed call is on it. Calls of milliseconds
    to tens of them, so a loaded machine's late wake-ups do not flatten the ramp."""
    call = _slowing_down(40, 0.04, 0.01)
    out = Timer("cpu", _interleaved_config(steady_tol=0.05, steady_max_seconds=5.0)).interleaved(
        [(call, None)]
    )
    assert out.warmup.settled is True
    assert out.warmup.rounds > 40
    assert statistics.median(out.samples[0]) < 15.0  # ms: the steady 10 ms, none of the ramp


def test_warmup_stops_at_its_cap_when_the_call_time_keeps_moving():
    n = {"calls": 0}

    def call(i: int) -> None:
        n["calls"] += 1
        time.sleep(0.0005 * (1 + n["calls"] / 5))

    t0 = time.monotonic()
    out = Timer("cpu", _interleaved_config(steady_tol=0.001, steady_max_seconds=0.15)).interleaved(
        [(call, None)]
    )
    assert out.warmup.settled is False
    assert 0.15 <= out.warmup.seconds < 1.0
    assert time.monotonic() - t0 < 2.0


def test_without_the_steady_check_the_warmup_is_its_calls_alone():
    out = Timer("cpu", _interleaved_config(warmup_calls=3)).interleaved(
        [(_slowing_down(30, 0.002, 0.001), None)]
    )
    assert out.warmup.settled is None
    assert out.warmup.rounds == 3
    assert len(out.round_starts) == len(out.samples[0]) == 10


def test_the_launch_cover_hides_the_launch_and_idles_half_a_heavy_call():
    from benchmark.evaluate.timing import launch_cover_ms

    assert launch_cover_ms(0.02, 0.13) == LAUNCH_COVER_MS  # a short kernel: the floor
    assert launch_cover_ms(0.15, 0.13) == pytest.approx(0.225)  # a slow launch: 1.5 x of it
    assert launch_cover_ms(0.05, 1.5) == pytest.approx(0.75)  # a 1.5 ms matmul: half its time idle
    assert launch_cover_ms(0.05, 30.0) == LAUNCH_COVER_MAX_MS


def test_the_paired_ratio_holds_where_each_call_is_fast_or_slow_by_chance():
    """Each call runs at one of two speeds, 8% apart, at random (as a Triton row sum and torch.sum did
    on the H200, call by call) with 0.5% noise of its own: the ratio of the arms' medians jumps by up
    to 8% with which speed holds the majority of each arm's calls in a block, while the median of
    the per-round ratio sits between the symmetric mixed rounds."""
    import random

    from benchmark.evaluate.timing import paired_ratio, ratio_spread

    rng = random.Random(0)

    def call(ms: float) -> float:
        return ms * (1.08 if rng.random() < 0.5 else 1.0) * (1 + 0.005 * rng.gauss(0, 1))

    ref = [call(0.142) for _ in range(1000)]
    cand = [call(0.130) for _ in range(1000)]
    assert paired_ratio(ref, cand) == pytest.approx(0.142 / 0.130, rel=0.01)
    assert ratio_spread([ref, cand]) < 0.01
    medians = [
        statistics.median(ref[j : j + 200]) / statistics.median(cand[j : j + 200])
        for j in range(0, 1000, 200)
    ]
    assert (max(medians) - min(medians)) / statistics.median(medians) > 0.02


def test_on_cuda_the_warmup_after_its_first_calls_runs_as_the_timed_rounds(monkeypatch):
    """The warm-up's later calls go behind the flush and a cover sized from the first calls, so the
    clocks settle at the timed rounds' duty cycle (a CPU stand-in for the CUDA calls)."""
    import types

    from benchmark.evaluate import timing

    class Event:
        def __init__(self, enable_timing=False):
            pass

        def record(self):
            pass

        def elapsed_time(self, other):
            return 4.0  # ms of each back-to-back warm-up call

    monkeypatch.setattr(timing.torch, "cuda", types.SimpleNamespace(Event=Event, synchronize=lambda: None))
    timer = Timer("cpu", _interleaved_config(warmup_calls=3, steady_max_seconds=5.0, min_runs=4, max_runs=4))
    timer.cuda = True
    made: list[tuple[bool, int]] = []  # (behind the flush, the cover's cycles then) of every `once`

    def once(fn, behind_flush=False, cover_cycles=1):
        made.append((behind_flush, cover_cycles))
        fn()
        return 4.0, 0.0

    timer.calls.cuda = True
    timer.calls.once = once
    timer.calls.cycles = lambda ms: round(ms * 1000)  # a 1 GHz clock
    out = timer.interleaved([(lambda i: None, None), (lambda i: None, None)])
    warm = made[: 2 * (out.warmup.rounds - 3)]
    assert out.warmup.rounds > 3 and len(made) == len(warm) + 2 * 4
    assert all(behind for behind, _ in made)
    assert timing.launch_cover_ms(0.0, 4.0) == 2.0
    assert {cover for _, cover in made} == {2000}


def test_every_arm_waits_the_cycles_the_judge_converted_whatever_its_own_process_measured():
    """The cover is converted to cycles once, by the Timer, and every arm, the candidate's process
    included, gets those cycles: a conversion of each process's own made the same cover last up to
    twice as long on one side as on the other when one probed while the clocks still ramped up."""
    timer = Timer("cpu", _interleaved_config(warmup_calls=3, steady_max_seconds=0.0, min_runs=4, max_runs=4))
    timer.cuda = True
    timer.calls.cycles = lambda ms: round(ms * 1_980_000)  # the judge's probe: 1.98 GHz
    seen: dict[str, set[int]] = {"judge": set(), "candidate": set()}

    class Arm:
        overhead_ms, gap_floor_ms = 0.0, 0.0

        def __init__(self, name: str):
            self.name = name

        def warm(self, i, covered, cover_cycles):
            if covered:
                seen[self.name].add(cover_cycles)
            return 0.3, 0.5  # launch ms, call ms

        def timed(self, i, behind_flush, cover_cycles):
            seen[self.name].add(cover_cycles)
            return 0.5, 0.0

    timer.interleaved([Arm("judge"), Arm("candidate")])
    expected = round(timing_module.launch_cover_ms(0.3, 0.5) * 1_980_000)
    assert seen == {"judge": {expected}, "candidate": {expected}}


@pytest.fixture
def fake_cuda(monkeypatch):
    """A CPU stand-in for the CUDA calls of `CallTimer`: every event pair reads 0.25 ms, and the
    cycles each `torch.cuda._sleep` was asked for are listed."""
    import types

    slept: list[int] = []

    class Event:
        def __init__(self, enable_timing=False):
            pass

        def record(self):
            pass

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return 0.25

    calls = timing_module.CallTimer("cpu")
    monkeypatch.setattr(
        timing_module.torch,
        "cuda",
        types.SimpleNamespace(Event=Event, synchronize=lambda: None, _sleep=slept.append),
    )
    calls.cuda = True
    return calls, slept


def test_a_call_timer_sleeps_the_cycles_it_is_given_and_probes_no_clock_of_its_own(monkeypatch, fake_cuda):
    """The candidate's side of the bracket: `once` behind the flush sleeps exactly the cycles sent,
    with no probe of its own clock; the judge's conversion, where NVML cannot name the highest clock,
    probes with a spin queued behind another (its launch untimed)."""
    from benchmark.evaluate import contention

    monkeypatch.setattr(contention, "max_sm_clock_mhz", lambda device: None)
    calls, slept = fake_cuda
    stream_ms, _ = calls.once(lambda: None, behind_flush=True, cover_cycles=123_456)
    assert stream_ms == 0.25 and slept == [123_456]
    assert calls.cycles(0.5) == round(0.5 * 200_000 / 0.25)  # the probe's rate
    assert slept[1:] == [200_000, 200_000]  # the one queued ahead, then the one timed


def test_the_judge_converts_at_the_highest_sm_clock_and_probes_nothing(monkeypatch, fake_cuda):
    """With NVML's highest SM clock a cover lasts at least its milliseconds at any clock the device
    runs, and no probe runs (a probe reads the clock of the moment, lower while the device ramps up)."""
    from benchmark.evaluate import contention

    monkeypatch.setattr(contention, "max_sm_clock_mhz", lambda device: 1980)
    calls, slept = fake_cuda
    assert calls.cycles(0.5) == 990_000
    assert calls.cycles(0.1) == 198_000
    assert slept == []


@pytest.mark.gpu
def test_the_cycles_of_a_cover_last_at_least_its_milliseconds_on_the_gpu():
    calls = timing_module.CallTimer("cuda")
    for ms in (0.1, 0.5, 2.0):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        cycles = calls.cycles(ms)
        start.record()
        torch.cuda._sleep(cycles)
        end.record()
        end.synchronize()
        assert start.elapsed_time(end) >= 0.97 * ms, (ms, cycles, start.elapsed_time(end))


class _ScriptedTimer:
    """Stands in for Timer in the judge: each interleaved timing makes one timed call of every arm (so
    the candidate's output is fetched for the recheck) and reports the next scripted reference time."""

    def __init__(self, refs: list[float]):
        from benchmark.evaluate.timing import CallTimer

        self.config = TimingConfig(contention_wait_s=0.0)
        self.calls = CallTimer("cpu")
        self.refs = iter(refs)
        self.tries = 0

    def interleaved(self, arms, config=None):
        self.tries += not getattr(arms[1], "empty", False)  # the time alone is no try
        for arm in arms:
            arm.timed(0, False, 1)
        ref_ms = next(self.refs)
        return _interleaved(ref_ms, cover_ms=ref_ms / 10)  # each try launched behind a cover of its own


class _Program:
    """A task program whose every input set is x."""

    def __init__(self, x):
        self.x = x

    def inputs(self, seed, alt=None, scale=1.0):
        return [self.x]

    def init_values(self, seed):
        import base64

        torch.manual_seed(seed)
        return [], {"cpu": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode()}


def _model(fn):
    class Model(torch.nn.Module):
        def forward(self, x):
            return fn(x)

    return Model


def _judge_timing(served_judge, refs: list[float], candidate, alone_ms: float = 2.0):
    x = torch.arange(4.0)
    program = _Program(x)
    judge = served_judge(_model(candidate), program)
    judge.timer = _ScriptedTimer([refs[0], alone_ms, *refs[1:]])  # the time alone right after the first try
    judge.reference_model = lambda x: x * 2
    ref = {"timed": [x * 2] * 3, "timed_exact": [None] * 3}
    judge.time_candidate(program, ref)
    return judge


def test_the_judge_times_again_while_the_reference_drifts_and_keeps_the_fastest_reference(served_judge):
    ev = _judge_timing(served_judge, [3.0, 2.1], lambda x: x * 2)
    assert ev.timer.tries == 2 and ev.env["timing_tries"] == "2"
    assert ev.times["reference_time"]["median_ms"] == 2.1 and not ev.flags


def test_the_judge_records_the_counted_trys_launch_cover(served_judge, monkeypatch, tmp_path):
    from benchmark.evaluate.timing import TRACE_ENV

    monkeypatch.setenv(TRACE_ENV, str(tmp_path))
    ev = _judge_timing(
        served_judge, [3.0, 2.5, 2.9], lambda x: x * 2
    )  # drifted in every try: the second counts
    assert ev.timer.tries == 3 and ev.times["reference_time"]["median_ms"] == 2.5
    assert ev.trace["cover_ms"] == pytest.approx(0.25)  # its own, not the last try's


def test_the_judge_checks_the_outputs_of_every_try(served_judge):
    calls = []

    def wrong_in_the_first_try(x):
        calls.append(1)
        return x * 2 if len(calls) > 1 else x * 3

    ev = _judge_timing(served_judge, [3.0, 2.1], wrong_in_the_first_try)
    assert ev.times["reference_time"]["median_ms"] == 2.1
    assert "timed_output_mismatch" in ev.flags


def test_the_judge_times_once_within_the_cap(served_judge):
    ev = _judge_timing(served_judge, [2.1], lambda x: x * 2)
    assert ev.timer.tries == 1 and "timing_tries" not in ev.env


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_touch_reads_fp8_outputs(dtype):
    """torch has no sum for fp8 on the CPU: a quantizer's output is read through its bytes."""
    from benchmark.evaluate.timing import touch

    q = torch.randn(64, 300).to(dtype)
    touch((q, q.t(), q[:, ::3], torch.ones(2)))


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (16, 8)])
def test_each_side_times_with_half_the_cores_on_the_cpu(monkeypatch, cores, threads):
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(cores)))
    before = torch.get_num_threads()
    try:
        share_cores(torch.device("cuda"))
        assert torch.get_num_threads() == before, "a GPU's timing leaves the host's threads alone"
        share_cores(torch.device("cpu"))
        share_cores(torch.device("cpu"))  # the same share each time, not half of half
        assert torch.get_num_threads() == threads
    finally:
        torch.set_num_threads(before)


_REALLOC_FAULTS = """
import resource, sys, torch
from benchmark.evaluate.timing import prepare_host
if sys.argv[1] == "kept":
    prepare_host(torch.device("cpu"))
faults = []
for _ in range(12):  # the heap grows over the first two to four, as in a timing's warm-up
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    torch.empty(64 << 20, dtype=torch.uint8).fill_(1)
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(max(faults[-4:]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_a_cpu_timing_side_reuses_freed_host_memory_without_page_faults():
    def faults(mode: str) -> int:
        out = subprocess.run(
            [sys.executable, "-c", _REALLOC_FAULTS, mode], capture_output=True, text=True, check=True
        )
        return int(out.stdout.split()[-1])

    assert faults("default") > 10_000, "a fresh mapping faults in each of its 16,384 pages"
    assert faults("kept") < 100, "once the heap has grown, freed buffers come back with their pages in"


def test_each_trys_hold_of_the_device_is_split_in_the_verdict(served_judge):
    """`timing_hold_s`: one entry per try, each hold the sum of its parts (the suite's wall time is
    bound by these holds, one lane's after another's)."""
    from benchmark.evaluate.judge import HOLD_PARTS, hold_parts

    ev = _judge_timing(served_judge, [3.0, 2.1], lambda x: x * 2)
    tries = hold_parts(ev.env)
    assert len(tries) == ev.timer.tries == 2
    for parts in tries:
        assert tuple(parts) == HOLD_PARTS
        summed = parts["warm-up"] + parts["rounds"] + parts["alone"] + parts["other"]
        assert summed == pytest.approx(parts["held"], abs=0.003)
    assert tries[1]["alone"] == 0.0  # timed alone in the first try only
