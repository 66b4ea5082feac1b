"""Metrics against hand-computed values."""

from __future__ import annotations

import math

import pytest

from benchmark import metrics
from benchmark.verdict import Status, TimingStats, Verdict


def v(task, sample, ok, speedup=None, level=1, turn=1, compile_speedup=None, sol=None):
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
