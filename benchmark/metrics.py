"""The metrics of DESIGN.md, defined once: every table, leaderboard and dataset card calls these.

All functions take verdicts of one model (any number of samples per task) and group by task.
When several turns of one sample are present, the last turn recorded counts (see `final_turns`)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Metrics:
    tasks: int
    samples: int
    pass_at_k: dict[int, float]
    avg_at_k: float  # mean fraction of correct samples per task
    fast_p: dict[float, float]  # fraction of samples correct and faster than p x eager
    faster_rate: float  # fraction correct and > 1.1x faster than eager
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


def compute(verdicts: Iterable[Verdict], ks: Iterable[int] = (1,)) -> Metrics:
    final = final_turns(verdicts)
    groups = by_task(final)
    n_samples = len(final)
    if not groups:
        return Metrics(0, 0, {}, 0.0, {p: 0.0 for p in FAST_P}, 0.0, None, None, None)
    min_n = min(len(g) for g in groups.values())
    pass_k = {
        k: sum(pass_at_k(len(g), sum(v.correct for v in g), k) for g in groups.values()) / len(groups)
        for k in ks
        if k <= min_n
    }
    avg = sum(sum(v.correct for v in g) / len(g) for g in groups.values()) / len(groups)
    fast = {p: sum(_fast(v, p, v.speedup) for v in final) / n_samples for p in FAST_P}
    faster = sum(_fast(v, FASTER_RATE_THRESHOLD, v.speedup) for v in final) / n_samples
    faster_compile = (
        sum(_fast(v, FASTER_RATE_THRESHOLD, v.speedup_compile) for v in final) / n_samples
        if any(v.compile_time is not None for v in final)
        else None
    )
    speedups = [v.speedup for v in final if v.correct and v.speedup and v.speedup > 0]
    geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else None
    sols = [v.sol_fraction for v in final if v.correct and v.sol_fraction is not None]
    return Metrics(
        tasks=len(groups),
        samples=n_samples,
        pass_at_k=pass_k,
        avg_at_k=avg,
        fast_p=fast,
        faster_rate=faster,
        faster_rate_compile=faster_compile,
        geomean_speedup=geo,
        mean_sol_fraction=sum(sols) / len(sols) if sols else None,
    )


def fast_p_curve(verdicts: Iterable[Verdict], ps: Iterable[float]) -> list[tuple[float, float]]:
    """(p, fast_p) at each threshold, for plotting fast_p over a continuous range of p."""
    final = final_turns(verdicts)
    if not final:
        return [(p, 0.0) for p in ps]
    return [(p, sum(_fast(v, p, v.speedup) for v in final) / len(final)) for p in ps]


def compute_by_level(verdicts: Iterable[Verdict], ks: Iterable[int] = (1,)) -> dict[str, Metrics]:
    """Metrics per level ("level1", ...) plus "overall"."""
    verdicts = list(verdicts)
    ks = tuple(ks)
    levels: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        levels[f"level{v.level}" if v.level is not None else "unleveled"].append(v)
    out = {name: compute(vs, ks) for name, vs in sorted(levels.items())}
    out["overall"] = compute(verdicts, ks)
    return out
