"""The demonstration's figures, by the benchmark's rules (benchmark.metrics).

A sample is recorded as [passed, speedup] (rl_demo.json's "per_task"; speedup over eager PyTorch, None
where it was not timed) and judged as the benchmark judges a verdict:

- pass_rate: Avg@k, the mean over tasks of the fraction of samples that pass (every task of a split
  has the same number of samples, so it is also the share of samples that pass);
- speedup_geomean: the geometric mean speedup over passing samples with a speedup;
- fast_1: fast_p at p = 1, correct and faster than eager by more than the timing's noise margin
  (`benchmark.metrics.is_faster`), over the samples whose speed is known; None where no passing
  sample was timed. The samples carry no measured spread, so the margin is UNMEASURED_SPREAD: a
  sample counts as faster above 1.1x.

`split_metrics` takes them from `benchmark.metrics.compute`. The paired intervals
(experiments.rl_demo.differences) resample tasks many times, so they work on per-task counts
(`task_sums`) that sum over any draw of tasks; `metric_values` turns summed counts into the same
figures, as the tests check against `compute`."""

from __future__ import annotations

import math

from benchmark.metrics import compute, is_faster
from benchmark.verdict import Status, Verdict

METRICS = ("pass_rate", "speedup_geomean", "fast_1")
FAST_P = 1.0  # the p of fast_1


def sample_verdicts(task_id: str, samples: list) -> list[Verdict]:
    """A task's [passed, speedup] samples as the benchmark's verdicts (pass or incorrect, the speedup
    as measured, no spread)."""
    return [
        Verdict(
            task_id=task_id, status=Status.PASS if passed else Status.INCORRECT, sample=i, speedup=speedup
        )
        for i, (passed, speedup) in enumerate(samples)
    ]


def split_metrics(per_task: dict[str, list]) -> dict:
    """The figures of a split from its per-task samples, as `evaluate` reports them."""
    verdicts = [v for task_id, samples in per_task.items() for v in sample_verdicts(task_id, samples)]
    m = compute(verdicts, resamples=0)
    return {
        "samples": m.samples,
        "pass_rate": m.avg_at_k,
        "speedup_geomean": m.geomean_speedup,
        "fast_1": m.fast_p[FAST_P],
    }


def task_sums(samples: list) -> list[float]:
    """A task's counts: [1 (the task), fraction passed, samples faster than p = 1, samples of known speed,
    passing samples not timed, passing samples, log speedup summed over timed passes, timed passes].
    Summed over any tasks (each as often as drawn), `metric_values` gives their figures."""
    verdicts = sample_verdicts("", samples)
    correct = [v for v in verdicts if v.correct]
    untimed = sum(1 for v in correct if v.speedup is None)
    logs = [math.log(v.speedup) for v in correct if v.speedup]
    return [
        1,
        len(correct) / len(verdicts),
        sum(1 for v in verdicts if is_faster(v, FAST_P)),
        len(verdicts) - untimed,
        untimed,
        len(correct),
        sum(logs),
        len(logs),
    ]


def metric_values(sums: list[float]) -> dict[str, float | None]:
    """pass_rate, speedup_geomean (None: no timed pass) and fast_1 (None: passes, none timed) of summed
    `task_sums`, as `benchmark.metrics.compute` defines them."""
    tasks, passed, fast, known, untimed, correct, logs, timed = sums
    return {
        "pass_rate": passed / tasks,
        "speedup_geomean": math.exp(logs / timed) if timed else None,
        "fast_1": None if untimed and untimed == correct else (fast / known if known else 0.0),
    }
