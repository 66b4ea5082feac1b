"""How two evaluations differ, and what may be claimed of it: every metric's difference (after - before
RL, or an SFT arm - plain) with a paired percentile-bootstrap 95% interval, over tasks and, where a
side has several training runs, over those runs too. A change is claimed only where the interval
excludes zero."""

from __future__ import annotations

import dataclasses
import operator

from benchmark.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONFIDENCE,
    Interval,
    quantile,
    resample_weights,
)
from experiments.rl_demo.metrics import METRICS, metric_values, split_metrics, task_sums


@dataclasses.dataclass(frozen=True)
class Difference:
    """after - before of one metric with its paired 95% interval; a change is claimed only where the
    interval excludes zero."""

    value: float | None  # None: the metric is undefined on a side (no timed pass)
    interval: Interval | None

    @property
    def improved(self) -> bool:
        return self.interval is not None and self.interval.lo > 0

    @property
    def worse(self) -> bool:
        return self.interval is not None and self.interval.hi < 0

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "interval": self.interval.to_list() if self.interval else None,
            "improved": self.improved,
            "worse": self.worse,
        }


def paired_differences(
    before: dict[str, list], after: dict[str, list], resamples: int = BOOTSTRAP_RESAMPLES
) -> dict[str, Difference]:
    """after - before of every metric on the same tasks (`evaluate`'s per_task), with a percentile
    bootstrap interval (benchmark.stats) in which each resample draws the tasks once for both sides,
    so what the drawn tasks share (how hard they are) cancels: `seed_task_differences` with one run a
    side. A resample on which a side has no timed pass gives no speedup difference and is left out."""
    return seed_task_differences([before], [after], resamples)


def drawn_sums(runs: list[list[list[float]]], seed_counts: list[int], task_counts: list[int]) -> list[float]:
    """`task_sums` (runs[seed][task]) summed over the drawn seeds and tasks, each as often as drawn."""
    per_seed = [
        [sum(map(operator.mul, task_counts, col)) for col in zip(*run, strict=True)]
        for c, run in zip(seed_counts, runs, strict=True)
        if c
    ]
    drawn = [c for c in seed_counts if c]
    return [sum(map(operator.mul, drawn, col)) for col in zip(*per_seed, strict=True)]


def seed_task_differences(
    base: list[dict[str, list]],
    other: list[dict[str, list]],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, Difference]:
    """other - base of every metric, each side one or more runs (training seeds) evaluated on the same
    tasks (`evaluate`'s per_task), with a two-level percentile bootstrap interval: each resample draws
    each side's seeds with replacement, independently, then the tasks with replacement, the same for
    both sides (paired over tasks), and takes the difference of the metric over the drawn seeds and
    tasks. The seed draw carries the variance between training runs into the interval; with one run a
    side it draws nothing and the interval is over tasks alone (`paired_differences`). A resample on
    which a side has a metric undefined (no timed pass) is left out of that metric's interval."""
    tasks = sorted(base[0])
    for run in base + other:
        if run.keys() != base[0].keys():
            raise ValueError(f"runs evaluated other tasks: {tasks} vs {sorted(run)}")
    sides = [[[task_sums(run[t]) for t in tasks] for run in runs] for runs in (base, other)]
    task_draws = resample_weights(len(tasks), resamples, seed)
    seed_draws = [resample_weights(len(runs), resamples, seed + 1 + i) for i, runs in enumerate(sides)]
    drawn = [
        [drawn_sums(runs, draws[r], task_draws[r]) for runs, draws in zip(sides, seed_draws, strict=True)]
        for r in range(resamples)
    ]
    once = [drawn_sums(runs, [1] * len(runs), [1] * len(tasks)) for runs in sides]
    tail = (1.0 - CONFIDENCE) / 2
    out = {}
    for metric in METRICS:

        def difference(pair: list[list[float]], metric: str = metric) -> float | None:
            b, a = (metric_values(sums)[metric] for sums in pair)
            return None if a is None or b is None else a - b

        value = difference(once)
        values = [v for v in map(difference, drawn) if v is not None] if value is not None else []
        interval = Interval(quantile(values, tail), quantile(values, 1.0 - tail)) if values else None
        out[metric] = Difference(value, interval)
    return out


def differences(before: dict, after: dict) -> dict:
    """An arm's rl_demo.json "differences": per split, per metric, after - before RL (an SFT arm: the
    arm - plain) with its interval."""
    return {
        split: {
            m: d.to_dict()
            for m, d in paired_differences(before[split]["per_task"], result["per_task"]).items()
        }
        for split, result in after.items()
    }


def compare_sft_arms(arms: dict) -> None:
    """Each SFT arm's test metrics over its evaluated training seeds ("over_seeds": pass and fast_1
    the mean of the seeds', speedup the geometric mean over every timed pass, and the range of pass
    over seeds, the training variance in plain sight) and, for every arm but plain, its difference
    from plain over seeds and tasks (`seed_task_differences`); recomputed from the runs each time."""
    evaluated = {
        name: {seed: run["eval"]["test"] for seed, run in arm["runs"].items() if "eval" in run}
        for name, arm in arms.items()
    }
    for name, arm in arms.items():
        arm.pop("over_seeds", None)
        arm.pop("differences", None)
        runs = evaluated[name]
        if not runs:
            continue
        passes = [r["pass_rate"] for r in runs.values()]
        pooled = {f"{seed}:{task}": v for seed, r in runs.items() for task, v in r["per_task"].items()}
        arm["over_seeds"] = {
            "seeds": [int(seed) for seed in runs],
            **split_metrics(pooled),
            "pass_rate_range": [min(passes), max(passes)],
        }
        if name != "plain" and evaluated.get("plain"):
            diffs = seed_task_differences(
                [r["per_task"] for r in evaluated["plain"].values()], [r["per_task"] for r in runs.values()]
            )
            arm["differences"] = {"test": {m: d.to_dict() for m, d in diffs.items()}}
