"""experiments.rl_demo.differences: the paired intervals of after - before RL and of an SFT arm - plain, over tasks and training seeds, and the claims they allow."""

from __future__ import annotations

import pytest
from rl_demo_support import (
    AFTER,
    BEFORE,
    outcomes,
)

from benchmark.stats import bootstrap_interval, resample_weights
from experiments.rl_demo import (
    differences,
    metrics,
)


def test_a_clear_gain_on_every_task_is_claimed_and_its_reverse_is_a_loss():
    gain = differences.paired_differences(BEFORE, AFTER)
    assert gain["pass_rate"].value == pytest.approx(20 / 24 - 12 / 24)
    for d in gain.values():
        assert d.value > 0 and d.interval.lo > 0 and d.improved and not d.worse
        assert d.interval.lo <= d.value <= d.interval.hi
    loss = differences.paired_differences(AFTER, BEFORE)
    for metric, d in loss.items():
        assert d.value == pytest.approx(-gain[metric].value)
        assert d.worse and not d.improved and d.interval.hi < 0


def test_a_gain_on_one_task_of_eight_is_not_claimed():
    before = {f"t{i}": [[True, 1.2], [False, None]] for i in range(8)}
    after = {**before, "t0": [[True, 1.2], [True, 1.2]]}
    d = differences.paired_differences(before, after)
    assert d["pass_rate"].value == pytest.approx(1 / 16)
    assert d["pass_rate"].interval.lo == 0.0 < d["pass_rate"].interval.hi
    assert not d["pass_rate"].improved and not d["pass_rate"].worse
    assert d["pass_rate"].to_dict() == {
        "value": d["pass_rate"].value,
        "interval": d["pass_rate"].interval.to_list(),
        "improved": False,
        "worse": False,
    }


def test_tasks_are_resampled_together_for_both_sides():
    """The same results before and after differ by exactly zero on every resample, however unlike
    the tasks are; resampling each side on its own would give a wide interval."""
    for d in differences.paired_differences(BEFORE, BEFORE).values():
        assert d.value == 0.0 and d.interval.to_list() == [0.0, 0.0]
        assert not d.improved and not d.worse


def test_a_speedup_difference_needs_a_timed_pass_on_both_sides():
    never = {t: [[False, None], [False, None]] for t in BEFORE}
    d = differences.paired_differences(never, AFTER)
    assert d["speedup_geomean"].value is None and d["speedup_geomean"].interval is None
    assert d["speedup_geomean"].to_dict()["improved"] is False
    assert d["pass_rate"].improved
    # one passing task before: resamples without it have no value and are left out, not counted as 0
    once = {**never, "test/t05": [[True, 1.0], [False, None]]}
    d = differences.paired_differences(once, AFTER)
    assert d["speedup_geomean"].value == pytest.approx(metrics.split_metrics(AFTER)["speedup_geomean"] - 1.0)
    assert d["speedup_geomean"].improved
    with pytest.raises(ValueError):
        differences.paired_differences(BEFORE, {"test/t00": AFTER["test/t00"]})


def test_seeds_that_swing_but_agree_on_average_show_no_difference_where_one_seed_pair_would():
    """The H200 case: one run of plain passed 6 of 32 (19%), another of the same recipe 30 (94%). Two
    arms whose seeds swing like that, with equal means, differ by zero with an interval that holds
    zero; their first seeds alone, over tasks, would claim +47 pp."""
    plain, arm = [outcomes(k) for k in (6, 30, 21)], [outcomes(k) for k in (21, 6, 30)]
    one_pair = differences.paired_differences(plain[0], arm[0])["pass_rate"]
    assert one_pair.value == pytest.approx(15 / 32) and one_pair.improved
    d = differences.seed_task_differences(plain, arm)["pass_rate"]
    assert d.value == 0.0
    assert d.interval.lo < -0.2 and d.interval.hi > 0.2
    assert not d.improved and not d.worse


def test_a_difference_every_seed_shows_is_claimed_over_seeds_and_tasks():
    plain, arm = [outcomes(k) for k in (6, 10, 14)], [outcomes(k) for k in (20, 24, 28)]
    diffs = differences.seed_task_differences(plain, arm)
    assert diffs["pass_rate"].value == pytest.approx(14 / 32)
    assert diffs["pass_rate"].improved and diffs["pass_rate"].interval.lo > 0.2
    assert diffs["fast_1"].improved
    assert diffs["speedup_geomean"].value == pytest.approx(0.0, abs=1e-12)
    assert not diffs["speedup_geomean"].improved and not diffs["speedup_geomean"].worse
    reverse = differences.seed_task_differences(arm, plain)["pass_rate"]
    assert reverse.worse and reverse.value == pytest.approx(-14 / 32)


def test_one_seed_a_side_is_the_paired_interval_over_tasks():
    """With one run a side the seed draw is always that run: the interval is benchmark.stats'
    paired bootstrap over tasks, to the last bit."""
    d = differences.seed_task_differences([BEFORE], [AFTER])["pass_rate"]
    tasks = sorted(BEFORE)
    columns = [
        list(c)
        for c in zip(
            *(metrics.task_sums(BEFORE[t]) + metrics.task_sums(AFTER[t]) for t in tasks), strict=True
        )
    ]

    width = len(metrics.task_sums(BEFORE[tasks[0]]))

    def pass_difference(sums):
        after, before = (metrics.metric_values(side)["pass_rate"] for side in (sums[width:], sums[:width]))
        return after - before

    assert d.interval == bootstrap_interval(columns, pass_difference, resample_weights(len(tasks)))


def test_runs_on_other_tasks_are_refused():
    with pytest.raises(ValueError):
        differences.seed_task_differences([BEFORE, outcomes(3)], [AFTER])
