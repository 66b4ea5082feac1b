"""The benchmark's metrics, defined once: every table, leaderboard and dataset card calls these.

All functions take verdicts of one model (any number of samples per task) and group by task.
When several turns of one sample are present, the last turn recorded counts (see `final_turns`).

Two rules keep a table honest about what it did not see:
- A task that was selected but has no verdict (its file did not load, its reference failed) is not
  dropped: pass `broken` and it counts as `samples_per_task` samples, none correct.
- A speed measure is None, not 0, when it was not taken: a correct sample without a speedup (timing
  off, or a contended GPU) is left out of the speed fractions rather than counted as "not faster",
  and a scope with correct samples but no timed one has fast_p (p > 0), Faster Rate and geomean None.
  fast_0 is correctness and is always a number.

Two more keep it honest about noise:
- "Faster than p x" (fast_p, Faster Rate, the progress bar) has one rule, `is_faster`: the sample is
  correct and its speedup exceeds p by more than its own timing spread, speedup > p x (1 + margin)
  with margin = max(speedup_spread, SPREAD_FLOOR), or UNMEASURED_SPREAD when the timing measured no
  spread. So a program timed against itself is not "faster" however its noise falls.
- Every metric comes with a 95% percentile-bootstrap interval over the scope's tasks
  (benchmark.stats: BOOTSTRAP_RESAMPLES resamples, seed BOOTSTRAP_SEED), in `Metrics.*_ci`."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter

from benchmark.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONFIDENCE,
    Interval,
    bootstrap_interval,
    geomean,
    resample_weights,
)
from benchmark.verdict import Verdict

FAST_P = (0.0, 1.0, 1.5, 2.0)
FASTER_RATE_THRESHOLD = 1.1  # Faster Rate is the fraction faster than this, by the rule of `is_faster`
SPREAD_FLOOR = 0.02  # least margin a speedup must clear: five blocks can understate the spread
UNMEASURED_SPREAD = 0.1  # margin of a speedup whose timing had too few rounds to measure a spread
METRICS_VERSION = 2  # 2: noise-aware "faster" and intervals; summary.json without it used speedup > p

Speedup = Callable[[Verdict], float | None]


def rules() -> dict:
    """The rules the numbers were computed by, as summary.json records them beside the metrics."""
    return {
        "version": METRICS_VERSION,
        "faster": "correct and speedup > p * (1 + margin), margin = max(speedup_spread, spread_floor), "
        "or unmeasured_spread when the timing measured no spread",
        "spread_floor": SPREAD_FLOOR,
        "unmeasured_spread": UNMEASURED_SPREAD,
        "faster_rate_threshold": FASTER_RATE_THRESHOLD,
        "intervals": {
            "method": "percentile bootstrap over the tasks of each scope",
            "resamples": BOOTSTRAP_RESAMPLES,
            "seed": BOOTSTRAP_SEED,
            "confidence": CONFIDENCE,
        },
    }


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimator 1 - C(n-c, k) / C(n, k) for one task with n samples, c correct."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples per task, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def final_turns(verdicts: Iterable[Verdict]) -> list[Verdict]:
    """One verdict per (task, sample): the latest turn."""
    last: dict[tuple[str, int], Verdict] = {}
    for v in verdicts:
        key = (v.task_id, v.sample)
        if key not in last or v.turn >= last[key].turn:
            last[key] = v
    return list(last.values())


def by_task(verdicts: Iterable[Verdict]) -> dict[str, list[Verdict]]:
    groups: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        groups[v.task_id].append(v)
    return dict(groups)


def noise_margin(v: Verdict) -> float:
    """The relative margin by which a speedup must clear a threshold to count: its measured spread
    within the timing ((max - min) / median over blocks of interleaved calls), at least SPREAD_FLOOR;
    UNMEASURED_SPREAD when no spread was measured."""
    return UNMEASURED_SPREAD if v.speedup_spread is None else max(v.speedup_spread, SPREAD_FLOOR)


def is_faster(v: Verdict, p: float, speedup: Speedup = attrgetter("speedup")) -> bool:
    """Correct and faster than p x by more than the timing noise: speedup > p x (1 + noise_margin).
    p = 0 is correctness. `speedup` picks the ratio; the one against torch.compile takes the same
    margin, as only the eager ratio's spread is measured (compile is timed on its own)."""
    if not v.correct:
        return False
    if p == 0.0:
        return True
    s = speedup(v)
    return s is not None and s > p * (1.0 + noise_margin(v))


@dataclass(frozen=True)
class Metrics:
    tasks: int  # broken tasks included
    samples: int  # samples counted, the unevaluated samples of broken tasks included
    pass_at_k: dict[int, float]
    avg_at_k: float  # mean fraction of correct samples per task
    fast_p: dict[float, float | None]  # fraction correct and faster than p x eager; None: not timed
    faster_rate: float | None  # fraction correct and faster than 1.1x eager; None: not timed
    faster_rate_compile: float | None  # same against torch.compile, when timed
    geomean_speedup: float | None  # over correct samples with a speedup
    mean_sol_fraction: float | None  # over correct samples with a SOL floor
    # 95% bootstrap intervals over tasks; None where the point value is None (or nothing was resampled)
    pass_at_k_ci: dict[int, Interval | None] = field(default_factory=dict)
    avg_at_k_ci: Interval | None = None
    fast_p_ci: dict[float, Interval | None] = field(default_factory=dict)
    faster_rate_ci: Interval | None = None
    faster_rate_compile_ci: Interval | None = None
    geomean_speedup_ci: Interval | None = None
    # over the correct, timed samples of tasks with a production baseline (benchmark.suite.baselines):
    # geometric mean of speedup / the best baseline's speedup, i.e. the sample against the best
    # baseline; None where no such sample (or no baseline) exists
    geomean_over_best: float | None = None
    geomean_over_best_ci: Interval | None = None

    def to_dict(self) -> dict:
        return {
            "tasks": self.tasks,
            "samples": self.samples,
            "pass_at_k": {str(k): v for k, v in self.pass_at_k.items()},
            "pass_at_k_ci": {str(k): _ci(self.pass_at_k_ci.get(k)) for k in self.pass_at_k},
            "avg_at_k": self.avg_at_k,
            "avg_at_k_ci": _ci(self.avg_at_k_ci),
            "fast_p": {str(p): v for p, v in self.fast_p.items()},
            "fast_p_ci": {str(p): _ci(self.fast_p_ci.get(p)) for p in self.fast_p},
            "faster_rate": self.faster_rate,
            "faster_rate_ci": _ci(self.faster_rate_ci),
            "faster_rate_compile": self.faster_rate_compile,
            "faster_rate_compile_ci": _ci(self.faster_rate_compile_ci),
            "geomean_speedup": self.geomean_speedup,
            "geomean_speedup_ci": _ci(self.geomean_speedup_ci),
            "mean_sol_fraction": self.mean_sol_fraction,
            "geomean_over_best": self.geomean_over_best,
            "geomean_over_best_ci": _ci(self.geomean_over_best_ci),
        }


def _ci(interval: Interval | None) -> list[float] | None:
    return interval.to_list() if interval is not None else None


@dataclass(frozen=True)
class _Fraction:
    """A speed fraction's per-task counts: the bootstrap's columns and the point value's sums."""

    fast: list[float]
    known: list[float]  # samples whose speed is known: all, less the correct untimed ones
    untimed: list[float]
    correct: list[float]

    @property
    def columns(self) -> list[list[float]]:
        return [self.fast, self.known, self.untimed, self.correct]

    @staticmethod
    def value(sums: list[float]) -> float | None:
        """fast / known; None when there are correct samples and none of them was timed."""
        fast, known, untimed, correct = sums
        if untimed and untimed == correct:
            return None
        return fast / known if known else 0.0

    def point(self) -> float | None:
        return self.value([sum(c) for c in self.columns])

    def interval(self, weights: list[list[int]]) -> Interval | None:
        if any(self.untimed):
            return bootstrap_interval(self.columns, self.value, weights)
        return bootstrap_interval([self.fast, self.known], _ratio, weights)  # the same, at half the work


def _ratio(sums: list[float]) -> float:
    return sums[0] / sums[1] if sums[1] else 0.0


def _fraction(groups: list[list[Verdict]], sizes: list[int], p: float, speedup: Speedup) -> _Fraction:
    """Per task (a missing task is an empty group of its size): samples faster than p x, samples of
    known speed, correct untimed samples, correct samples. At p = 0 every sample's outcome is known."""
    untimed = [0 if p == 0.0 else sum(v.correct and speedup(v) is None for v in g) for g in groups]
    return _Fraction(
        fast=[sum(is_faster(v, p, speedup) for v in g) for g in groups],
        known=[n - u for n, u in zip(sizes, untimed, strict=True)],
        untimed=untimed,
        correct=[sum(v.correct for v in g) for g in groups],
    )


def _mean(sums: list[float]) -> float | None:
    return sums[0] / sums[1] if sums[1] else None


def _geomean_of_logs(sums: list[float]) -> float | None:
    return math.exp(sums[0] / sums[1]) if sums[1] else None


def compute(
    verdicts: Iterable[Verdict],
    ks: Iterable[int] = (1,),
    broken: Iterable[str] = (),
    samples_per_task: int = 1,
    resamples: int = BOOTSTRAP_RESAMPLES,
    best: Mapping[str, float] | None = None,
) -> Metrics:
    """Metrics of one scope. `broken`: task ids selected in this scope that may have no verdict; each
    one without a verdict counts as a task of `samples_per_task` samples, none correct. `resamples`:
    bootstrap resamples of the intervals (0: no intervals). `best`: task id -> the speedup over eager
    of the task's best production baseline, for `geomean_over_best`."""
    final = final_turns(verdicts)
    by = by_task(final)
    missing = set(broken) - set(by)
    ids = sorted(by.keys() | missing)  # in task order, so the resamples do not follow verdict order
    groups = [by.get(t, []) for t in ids]
    sizes = [len(by[t]) if t in by else samples_per_task for t in ids]
    if not sizes:
        return Metrics(0, 0, {}, 0.0, {p: 0.0 for p in FAST_P}, 0.0, None, None, None)
    weights = resample_weights(len(sizes), resamples) if resamples else []
    ones = [1.0] * len(sizes)

    def interval(columns: list[list[float]], statistic, point: float | None) -> Interval | None:
        return bootstrap_interval(columns, statistic, weights) if weights and point is not None else None

    correct = [sum(v.correct for v in g) for g in groups]
    pass_cols = {
        k: [pass_at_k(n, c, k) for n, c in zip(sizes, correct, strict=True)] for k in ks if k <= min(sizes)
    }
    pass_k = {k: sum(col) / len(col) for k, col in pass_cols.items()}
    avg_col = [c / n for n, c in zip(sizes, correct, strict=True)]
    avg = sum(avg_col) / len(avg_col)

    def speed(p: float, speedup: Speedup = attrgetter("speedup")) -> tuple[float | None, Interval | None]:
        f = _fraction(groups, sizes, p, speedup)
        point = f.point()
        return point, f.interval(weights) if weights and point is not None else None

    fast = {p: speed(p) for p in FAST_P}
    faster = speed(FASTER_RATE_THRESHOLD)
    timed_compile = any(v.compile_time is not None for v in final)
    faster_compile = speed(FASTER_RATE_THRESHOLD, attrgetter("speedup_compile")) if timed_compile else None
    speedups = [v.speedup for v in final if v.correct and v.speedup and v.speedup > 0]
    geo = geomean(speedups) if speedups else None
    logs = [[math.log(v.speedup) for v in g if v.correct and v.speedup and v.speedup > 0] for g in groups]
    sols = [v.sol_fraction for v in final if v.correct and v.sol_fraction is not None]
    over = [[math.log(x) for x in _over_best(g, best or {})] for g in groups]
    n_over = sum(len(x) for x in over)
    geo_over = math.exp(sum(sum(x) for x in over) / n_over) if n_over else None
    return Metrics(
        tasks=len(sizes),
        samples=len(final) + samples_per_task * len(missing),
        pass_at_k=pass_k,
        avg_at_k=avg,
        fast_p={p: point for p, (point, _) in fast.items()},
        faster_rate=faster[0],
        faster_rate_compile=faster_compile[0] if faster_compile else None,
        geomean_speedup=geo,
        mean_sol_fraction=sum(sols) / len(sols) if sols else None,
        pass_at_k_ci={k: interval([col, ones], _mean, pass_k[k]) for k, col in pass_cols.items()},
        avg_at_k_ci=interval([avg_col, ones], _mean, avg),
        fast_p_ci={p: ci for p, (_, ci) in fast.items()},
        faster_rate_ci=faster[1],
        faster_rate_compile_ci=faster_compile[1] if faster_compile else None,
        geomean_speedup_ci=interval([[sum(x) for x in logs], [len(x) for x in logs]], _geomean_of_logs, geo),
        geomean_over_best=geo_over,
        geomean_over_best_ci=interval(
            [[sum(x) for x in over], [len(x) for x in over]], _geomean_of_logs, geo_over
        ),
    )


def over_best(v: Verdict, best: Mapping[str, float]) -> float | None:
    """The sample's speedup over eager divided by its task's best production baseline's: how it fares
    against the best available implementation (> 1: faster). None when not correct, not timed, or the
    task has no baseline."""
    b = best.get(v.task_id)
    if not v.correct or not v.speedup or v.speedup <= 0 or not b or b <= 0:
        return None
    return v.speedup / b


def _over_best(group: list[Verdict], best: Mapping[str, float]) -> list[float]:
    return [x for x in (over_best(v, best) for v in group) if x is not None]


def fast_p_curve(verdicts: Iterable[Verdict], ps: Iterable[float]) -> list[tuple[float, float]]:
    """(p, fast_p) at each threshold where fast_p is known, for plotting fast_p over a range of p;
    thresholds p > 0 are left out when no correct sample was timed."""
    groups = list(by_task(final_turns(verdicts)).values())
    sizes = [len(g) for g in groups]
    points = [(p, _fraction(groups, sizes, p, attrgetter("speedup")).point()) for p in ps]
    return [(p, f) for p, f in points if f is not None]


def fast_p_band(
    verdicts: Iterable[Verdict], ps: Iterable[float], resamples: int = BOOTSTRAP_RESAMPLES
) -> list[tuple[float, Interval]]:
    """(p, 95% interval of fast_p) at each threshold where fast_p is known: the band around
    `fast_p_curve`, bootstrapped over tasks like every interval of `compute` (the same resamples at
    every p)."""
    by = by_task(final_turns(verdicts))
    groups = [by[t] for t in sorted(by)]
    sizes = [len(g) for g in groups]
    weights = resample_weights(len(groups), resamples) if groups else []
    out = []
    for p in ps:
        f = _fraction(groups, sizes, p, attrgetter("speedup"))
        ci = f.interval(weights) if weights and f.point() is not None else None
        if ci is not None:
            out.append((p, ci))
    return out


def compute_by_level(
    verdicts: Iterable[Verdict],
    ks: Iterable[int] = (1,),
    broken: Mapping[str, int | None] | None = None,
    samples_per_task: int = 1,
    best: Mapping[str, float] | None = None,
) -> dict[str, Metrics]:
    """Metrics per level ("level1", ...) plus "overall". `broken` maps the id of each selected task
    that may lack verdicts to its level (None: "unleveled"); see `compute`."""
    verdicts = list(verdicts)
    ks = tuple(ks)
    broken = dict(broken or {})
    levels: dict[str, list[Verdict]] = defaultdict(list)
    broken_in: dict[str, list[str]] = defaultdict(list)
    for v in verdicts:
        levels[_scope(v.level)].append(v)
    for task_id, level in broken.items():
        broken_in[_scope(level)].append(task_id)
    out = {
        name: compute(levels.get(name, []), ks, broken_in.get(name, []), samples_per_task, best=best)
        for name in sorted(levels.keys() | broken_in.keys())
    }
    out["overall"] = compute(verdicts, ks, broken, samples_per_task, best=best)
    return out


def _scope(level: int | None) -> str:
    return f"level{level}" if level is not None else "unleveled"
