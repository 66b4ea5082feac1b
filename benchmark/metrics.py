"""The metrics of DESIGN.md, defined once: every table, leaderboard and dataset card calls these.

All functions take verdicts of one model (any number of samples per task) and group by task.
When several turns of one sample are present, the last turn recorded counts (see `final_turns`).

Two rules keep a table honest about what it did not see:
- A task that was selected but has no verdict (its file did not load, its reference failed) is not
  dropped: pass `broken` and it counts as `samples_per_task` samples, none correct.
- A speed measure is None, not 0, when it was not taken: a correct sample without a speedup (timing
  off, or a contended GPU) is left out of the speed fractions rather than counted as "not faster",
  and a scope with correct samples but no timed one has fast_p (p > 0), Faster Rate and geomean None.
  fast_0 is correctness and is always a number."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter

from benchmark.stats import geomean
from benchmark.verdict import Verdict

FAST_P = (0.0, 1.0, 1.5, 2.0)
FASTER_RATE_THRESHOLD = 1.1


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


def _fast(v: Verdict, p: float, speedup: float | None) -> bool:
    return v.correct and (p == 0.0 or (speedup is not None and speedup > p))


def _fast_fraction(
    final: list[Verdict],
    p: float,
    unevaluated: int = 0,
    speedup: Callable[[Verdict], float | None] = attrgetter("speedup"),
) -> float | None:
    """Fraction of samples correct and faster than p x; `unevaluated` samples count as failed ones.
    For p > 0 a correct sample without a speedup is unknown, so it is left out of the denominator;
    None when there are correct samples and none of them was timed."""
    n = len(final) + unevaluated
    if p == 0.0 or n == 0:
        return sum(v.correct for v in final) / n if n else 0.0
    untimed = sum(v.correct and speedup(v) is None for v in final)
    if untimed and untimed == sum(v.correct for v in final):
        return None
    return sum(_fast(v, p, speedup(v)) for v in final) / (n - untimed)


@dataclass(frozen=True)
class Metrics:
    tasks: int  # broken tasks included
    samples: int  # samples counted, the unevaluated samples of broken tasks included
    pass_at_k: dict[int, float]
    avg_at_k: float  # mean fraction of correct samples per task
    fast_p: dict[float, float | None]  # fraction correct and faster than p x eager; None: not timed
    faster_rate: float | None  # fraction correct and > 1.1x faster than eager; None: not timed
    faster_rate_compile: float | None  # same against torch.compile, when timed
    geomean_speedup: float | None  # over correct samples with a speedup
    mean_sol_fraction: float | None  # over correct samples with a SOL floor

    def to_dict(self) -> dict:
        return {
            "tasks": self.tasks,
            "samples": self.samples,
            "pass_at_k": {str(k): v for k, v in self.pass_at_k.items()},
            "avg_at_k": self.avg_at_k,
            "fast_p": {str(p): v for p, v in self.fast_p.items()},
            "faster_rate": self.faster_rate,
            "faster_rate_compile": self.faster_rate_compile,
            "geomean_speedup": self.geomean_speedup,
            "mean_sol_fraction": self.mean_sol_fraction,
        }


def compute(
    verdicts: Iterable[Verdict],
    ks: Iterable[int] = (1,),
    broken: Iterable[str] = (),
    samples_per_task: int = 1,
) -> Metrics:
    """Metrics of one scope. `broken`: task ids selected in this scope that may have no verdict; each
    one without a verdict counts as a task of `samples_per_task` samples, none correct."""
    final = final_turns(verdicts)
    groups = by_task(final)
    sizes = [len(g) for g in groups.values()]
    correct = [sum(v.correct for v in g) for g in groups.values()]
    missing = sorted(set(broken) - set(groups))
    sizes += [samples_per_task] * len(missing)
    correct += [0] * len(missing)
    unevaluated = samples_per_task * len(missing)
    if not sizes:
        return Metrics(0, 0, {}, 0.0, {p: 0.0 for p in FAST_P}, 0.0, None, None, None)
    pass_k = {
        k: sum(pass_at_k(n, c, k) for n, c in zip(sizes, correct, strict=True)) / len(sizes)
        for k in ks
        if k <= min(sizes)
    }
    avg = sum(c / n for n, c in zip(sizes, correct, strict=True)) / len(sizes)
    fast = {p: _fast_fraction(final, p, unevaluated) for p in FAST_P}
    faster = _fast_fraction(final, FASTER_RATE_THRESHOLD, unevaluated)
    faster_compile = (
        _fast_fraction(final, FASTER_RATE_THRESHOLD, unevaluated, attrgetter("speedup_compile"))
        if any(v.compile_time is not None for v in final)
        else None
    )
    speedups = [v.speedup for v in final if v.correct and v.speedup and v.speedup > 0]
    geo = geomean(speedups) if speedups else None
    sols = [v.sol_fraction for v in final if v.correct and v.sol_fraction is not None]
    return Metrics(
        tasks=len(sizes),
        samples=len(final) + unevaluated,
        pass_at_k=pass_k,
        avg_at_k=avg,
        fast_p=fast,
        faster_rate=faster,
        faster_rate_compile=faster_compile,
        geomean_speedup=geo,
        mean_sol_fraction=sum(sols) / len(sols) if sols else None,
    )


def fast_p_curve(verdicts: Iterable[Verdict], ps: Iterable[float]) -> list[tuple[float, float]]:
    """(p, fast_p) at each threshold where fast_p is known, for plotting fast_p over a range of p;
    thresholds p > 0 are left out when no correct sample was timed."""
    final = final_turns(verdicts)
    points = [(p, _fast_fraction(final, p)) for p in ps]
    return [(p, f) for p, f in points if f is not None]


def compute_by_level(
    verdicts: Iterable[Verdict],
    ks: Iterable[int] = (1,),
    broken: Mapping[str, int | None] | None = None,
    samples_per_task: int = 1,
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
        name: compute(levels.get(name, []), ks, broken_in.get(name, []), samples_per_task)
        for name in sorted(levels.keys() | broken_in.keys())
    }
    out["overall"] = compute(verdicts, ks, broken, samples_per_task)
    return out


def _scope(level: int | None) -> str:
    return f"level{level}" if level is not None else "unleveled"
