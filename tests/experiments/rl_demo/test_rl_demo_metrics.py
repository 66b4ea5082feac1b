"""experiments.rl_demo.metrics: a split's figures are the benchmark's (benchmark.metrics.compute), and the
per-task counts the intervals resample give the same figures."""

from __future__ import annotations

import pytest
from rl_demo_support import AFTER, BEFORE, outcomes

from benchmark.metrics import compute
from experiments.rl_demo import metrics

SPLITS = {
    "before": BEFORE,
    "after": AFTER,
    "two 2x passes of 32": outcomes(2),
    "a pass not timed": {"t0": [[True, None], [True, 2.0]], "t1": [[False, None], [True, 0.5]]},
    "passes, none timed": {"t0": [[True, None], [False, None]], "t1": [[True, None], [True, None]]},
    "no pass": {"t0": [[False, None], [False, None]], "t1": [[False, None], [False, None]]},
}


def summed(per_task: dict) -> list[float]:
    return [sum(column) for column in zip(*map(metrics.task_sums, per_task.values()), strict=True)]


@pytest.mark.parametrize("name", SPLITS)
def test_the_figures_of_a_split_are_the_benchmarks_and_its_summed_counts_give_them_too(name):
    per_task = SPLITS[name]
    verdicts = [v for task_id, s in per_task.items() for v in metrics.sample_verdicts(task_id, s)]
    expected = compute(verdicts, resamples=0)
    got = metrics.split_metrics(per_task)
    assert got == {
        "samples": expected.samples,
        "pass_rate": expected.avg_at_k,
        "speedup_geomean": expected.geomean_speedup,
        "fast_1": expected.fast_p[1.0],
    }
    from_sums = metrics.metric_values(summed(per_task))
    assert from_sums["pass_rate"] == got["pass_rate"] and from_sums["fast_1"] == got["fast_1"]
    if got["speedup_geomean"] is None:
        assert from_sums["speedup_geomean"] is None
    else:
        assert from_sums["speedup_geomean"] == pytest.approx(got["speedup_geomean"], rel=1e-12)


def test_fast_1_needs_more_than_the_noise_margin_and_leaves_untimed_passes_out():
    """No spread is recorded, so the margin is benchmark.metrics.UNMEASURED_SPREAD: 1.05x is not faster
    than eager, 1.2x is; a pass without a speedup counts in neither the numerator nor the denominator."""
    figures = metrics.split_metrics({"t0": [[True, 1.05], [True, 1.2]], "t1": [[True, None], [False, None]]})
    assert figures["fast_1"] == pytest.approx(1 / 3)
    assert figures["pass_rate"] == 0.75
    assert metrics.split_metrics(SPLITS["passes, none timed"])["fast_1"] is None
    assert metrics.split_metrics(SPLITS["no pass"])["fast_1"] == 0.0
