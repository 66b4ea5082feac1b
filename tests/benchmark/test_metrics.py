"""Metrics against hand-computed values."""

from __future__ import annotations

import math

import pytest

from benchmark import metrics
from benchmark.stats import Interval
from benchmark.verdict import Status, TimingStats, Verdict


def v(task, sample, ok, speedup=None, level=1, turn=1, compile_speedup=None, sol=None, spread=0.0):
    """A verdict whose timing measured `spread` (0: the margin is SPREAD_FLOOR, 2%)."""
    ct = TimingStats(5, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0) if compile_speedup is not None else None
    return Verdict(
        task_id=task,
        sample=sample,
        turn=turn,
        level=level,
        status=Status.PASS if ok else Status.INCORRECT,
        speedup=speedup if ok else None,
        compile_time=ct,
        speedup_compile=compile_speedup if ok else None,
        sol_fraction=sol if ok else None,
        speedup_spread=spread if ok and speedup is not None else None,
    )


def test_pass_at_k_estimator():
    assert metrics.pass_at_k(4, 0, 1) == 0.0
    assert metrics.pass_at_k(4, 4, 1) == 1.0
    assert metrics.pass_at_k(4, 1, 1) == pytest.approx(0.25)
    # 1 - C(3,2)/C(4,2) = 1 - 3/6
    assert metrics.pass_at_k(4, 1, 2) == pytest.approx(0.5)
    # 1 - C(8-3, 4)/C(8, 4) = 1 - 5/70
    assert metrics.pass_at_k(8, 3, 4) == pytest.approx(1 - 5 / 70)
    with pytest.raises(ValueError):
        metrics.pass_at_k(2, 1, 3)


def test_compute_by_hand():
    vs = [
        v("a", 0, True, 2.0),
        v("a", 1, False),
        v("a", 2, True, 1.2),
        v("a", 3, False),
        v("b", 0, True, 0.5),
        v("b", 1, True, 1.6),
        v("b", 2, True, 3.0),
        v("b", 3, False),
    ]
    m = metrics.compute(vs, ks=(1, 2))
    assert m.tasks == 2 and m.samples == 8
    assert m.pass_at_k[1] == pytest.approx((2 / 4 + 3 / 4) / 2)
    # a: 1 - C(2,2)/C(4,2) = 5/6; b: 1 - C(1,2)/C(4,2) = 1
    assert m.pass_at_k[2] == pytest.approx((5 / 6 + 1) / 2)
    assert m.avg_at_k == pytest.approx(0.625)
    assert m.fast_p[0.0] == pytest.approx(5 / 8)
    assert m.fast_p[1.0] == pytest.approx(4 / 8)  # 2.0, 1.2, 1.6, 3.0
    assert m.fast_p[1.5] == pytest.approx(3 / 8)
    assert m.fast_p[2.0] == pytest.approx(1 / 8)  # strictly faster than 2x: only 3.0
    assert m.faster_rate == pytest.approx(4 / 8)  # > 1.1x
    assert m.faster_rate_compile is None
    assert m.geomean_speedup == pytest.approx(math.exp(sum(map(math.log, [2.0, 1.2, 0.5, 1.6, 3.0])) / 5))


def test_faster_rate_against_compile_and_sol():
    vs = [
        v("a", 0, True, 2.0, compile_speedup=1.05, sol=0.5),
        v("a", 1, True, 2.0, compile_speedup=1.5, sol=0.25),
    ]
    m = metrics.compute(vs)
    assert m.faster_rate_compile == pytest.approx(0.5)
    assert m.mean_sol_fraction == pytest.approx(0.375)


def test_last_turn_counts():
    vs = [v("a", 0, False, turn=1), v("a", 0, True, 1.5, turn=2)]
    assert metrics.compute(vs).avg_at_k == 1.0


def test_by_level_and_overall():
    vs = [v("a", 0, True, 1.0, level=1), v("b", 0, False, level=2)]
    out = metrics.compute_by_level(vs)
    assert set(out) == {"level1", "level2", "overall"}
    assert out["level1"].avg_at_k == 1.0 and out["level2"].avg_at_k == 0.0
    assert out["overall"].avg_at_k == 0.5


def test_empty():
    m = metrics.compute([])
    assert m.tasks == 0 and m.geomean_speedup is None


def test_broken_tasks_count_as_failed():
    vs = [v("a", 0, True, 2.0), v("a", 1, True, 0.5)]
    m = metrics.compute(vs, ks=(1, 2), broken=["b", "c", "a"], samples_per_task=2)
    assert m.tasks == 3 and m.samples == 6  # "a" has verdicts, so only b and c are unevaluated
    assert m.pass_at_k[1] == pytest.approx(1 / 3) and m.pass_at_k[2] == pytest.approx(1 / 3)
    assert m.avg_at_k == pytest.approx(1 / 3)
    assert m.fast_p[0.0] == pytest.approx(2 / 6) and m.fast_p[1.0] == pytest.approx(1 / 6)
    assert m.geomean_speedup == pytest.approx(1.0)


def test_broken_tasks_by_level():
    vs = [v("a", 0, True, 1.5, level=1)]
    out = metrics.compute_by_level(vs, broken={"b": 1, "c": 2, "d": None})
    assert set(out) == {"level1", "level2", "unleveled", "overall"}
    assert out["level1"].tasks == 2 and out["level1"].avg_at_k == 0.5
    assert out["level2"].tasks == 1 and out["level2"].pass_at_k[1] == 0.0
    assert out["level2"].fast_p[1.0] == 0.0  # nothing correct: nothing is faster, timed or not
    assert out["unleveled"].tasks == 1
    assert out["overall"].tasks == 4 and out["overall"].fast_p[1.0] == pytest.approx(0.25)


def test_untimed_speed_is_none_not_zero():
    vs = [v("a", 0, True), v("a", 1, True), v("b", 0, False), v("b", 1, False)]  # correct, never timed
    m = metrics.compute(vs)
    assert m.fast_p[0.0] == 0.5
    assert m.fast_p[1.0] is None and m.fast_p[2.0] is None
    assert m.faster_rate is None and m.geomean_speedup is None
    assert metrics.fast_p_curve(vs, [0.0, 1.0]) == [(0.0, 0.5)]


def test_correct_but_untimed_sample_is_not_counted_as_slower():
    vs = [v("a", 0, True, 2.0), v("a", 1, True), v("a", 2, False)]  # sample 1 passed, was not timed
    m = metrics.compute(vs)
    assert m.fast_p[0.0] == pytest.approx(2 / 3)
    assert m.fast_p[1.0] == pytest.approx(1 / 2)  # of the samples whose speed is known: 1 fast, 1 wrong
    assert m.faster_rate == pytest.approx(1 / 2)
    assert dict(metrics.fast_p_curve(vs, [1.0]))[1.0] == m.fast_p[1.0]


def test_faster_means_above_p_by_more_than_the_spread():
    assert metrics.is_faster(v("a", 0, True, 1.05, spread=0.04), 1.0)
    assert not metrics.is_faster(v("a", 0, True, 1.05, spread=0.06), 1.0)  # inside its own noise
    assert not metrics.is_faster(v("a", 0, True, 1.015, spread=0.0), 1.0)  # below the 2% floor
    assert metrics.is_faster(v("a", 0, True, 1.025, spread=0.0), 1.0)
    assert not metrics.is_faster(v("a", 0, True, 1.08, spread=None), 1.0)  # unmeasured: 10% margin
    assert metrics.is_faster(v("a", 0, True, 1.11, spread=None), 1.0)
    # p > 1 scales the margin: 2.1 clears 2 x 1.04 = 2.08, not 2 x 1.06
    assert metrics.is_faster(v("a", 0, True, 2.1, spread=0.04), 2.0)
    assert not metrics.is_faster(v("a", 0, True, 2.1, spread=0.06), 2.0)
    assert metrics.is_faster(v("a", 0, True, 0.5), 0.0) and not metrics.is_faster(v("a", 0, False), 0.0)


def test_a_program_timed_against_itself_is_not_faster():
    """The reference baseline: speedups 1.0 +- the timing noise, each inside its own spread."""
    import random

    rng = random.Random(1)
    vs = []
    for i in range(40):
        spread = rng.uniform(0.01, 0.08)
        vs.append(v(f"t{i}", 0, True, 1.0 + rng.uniform(-spread, spread), spread=spread))
    m = metrics.compute(vs)
    assert m.fast_p[0.0] == 1.0
    assert m.fast_p[1.0] == 0.0 and m.faster_rate == 0.0
    assert m.fast_p_ci[1.0] == Interval(0.0, 0.0)
    assert 0.9 < m.geomean_speedup < 1.1
    assert m.geomean_speedup_ci.lo < 1.0 < m.geomean_speedup_ci.hi  # the interval covers the noise


def suite_of(n_tasks, rng):
    vs = []
    for t in range(n_tasks):
        for s in range(4):
            ok = rng.random() < 0.6
            vs.append(v(f"t{t}", s, ok, rng.uniform(0.5, 3.0), level=1 + t % 2, spread=0.03))
    return vs


def test_intervals_bracket_the_point_and_are_reproducible():
    import random

    vs = suite_of(30, random.Random(2))
    m = metrics.compute(vs, ks=(1, 4))
    again = metrics.compute(list(reversed(vs)), ks=(1, 4))
    assert m == again  # the same seed, the same resamples: the same intervals in any verdict order
    pairs = [
        (m.pass_at_k[1], m.pass_at_k_ci[1]),
        (m.pass_at_k[4], m.pass_at_k_ci[4]),
        (m.avg_at_k, m.avg_at_k_ci),
        (m.faster_rate, m.faster_rate_ci),
        (m.geomean_speedup, m.geomean_speedup_ci),
        *((m.fast_p[p], m.fast_p_ci[p]) for p in metrics.FAST_P),
    ]
    for point, ci in pairs:
        assert ci.lo <= point <= ci.hi and ci.lo < ci.hi
    assert m.pass_at_k_ci[1] == m.avg_at_k_ci  # Pass@1 is Avg@k, resampled alike
    d = m.to_dict()
    assert d["fast_p_ci"]["1.0"] == [m.fast_p_ci[1.0].lo, m.fast_p_ci[1.0].hi]
    assert d["pass_at_k_ci"].keys() == d["pass_at_k"].keys() and d["faster_rate_compile_ci"] is None


def test_intervals_narrow_with_more_tasks():
    import random

    small = metrics.compute(suite_of(10, random.Random(3))).avg_at_k_ci
    large = metrics.compute(suite_of(160, random.Random(3))).avg_at_k_ci
    assert large.hi - large.lo < (small.hi - small.lo) / 2


def test_no_intervals_when_not_asked_or_not_measured():
    vs = [v("a", 0, True), v("b", 0, False)]  # correct but untimed
    m = metrics.compute(vs)
    assert m.fast_p[1.0] is None and m.fast_p_ci[1.0] is None and m.geomean_speedup_ci is None
    assert m.avg_at_k_ci is not None
    plain = metrics.compute(vs, resamples=0)
    assert plain.avg_at_k == m.avg_at_k and plain.avg_at_k_ci is None and plain.pass_at_k_ci == {1: None}


def test_fast_p_band_brackets_the_curve():
    import random

    vs = suite_of(30, random.Random(4))
    ps = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    band = dict(metrics.fast_p_band(vs, ps))
    curve = dict(metrics.fast_p_curve(vs, ps))
    assert band.keys() == curve.keys()
    for p, ci in band.items():
        assert ci.lo <= curve[p] <= ci.hi
    assert band[1.0] == metrics.compute(vs).fast_p_ci[1.0]  # the same resamples as the table's
    untimed = [v("a", 0, True), v("b", 0, False)]
    assert [p for p, _ in metrics.fast_p_band(untimed, ps)] == [0.0]


def test_geomean_over_best_baseline():
    """Speedup over eager divided by the task's best production baseline's, over correct timed
    samples of tasks that have one."""
    vs = [v("a", 0, True, 4.0), v("a", 1, False, 9.0), v("b", 0, True, 2.0), v("c", 0, True, 3.0)]
    m = metrics.compute(vs, best={"a": 2.0, "b": 4.0}, resamples=0)
    assert m.geomean_over_best == pytest.approx(math.sqrt((4.0 / 2.0) * (2.0 / 4.0)))
    assert metrics.compute(vs, resamples=0).geomean_over_best is None
    assert metrics.over_best(vs[2], {"b": 4.0}) == pytest.approx(0.5)
    assert metrics.over_best(vs[3], {"b": 4.0}) is None
