"""scripts/bench_suite.py without a GPU: the per-level sample, and the extrapolation (start-up, the
measured samples' cost weighed by level, the bootstrap interval, a level that was not reached)."""

from __future__ import annotations

import bench_suite as bs
import pytest


def test_sample_takes_the_fraction_of_every_level_and_is_seeded():
    levels = {f"level{lv}/t{i}": lv for lv, n in ((1, 200), (2, 100), (3, 10)) for i in range(n)}
    picked = bs.sample_tasks(levels, 0.05, seed=3)
    assert [sum(levels[t] == lv for t in picked) for lv in (1, 2, 3)] == [10, 5, 1]  # at least one per level
    assert picked == bs.sample_tasks(levels, 0.05, seed=3) != bs.sample_tasks(levels, 0.05, seed=4)


def test_estimate_scales_the_steady_part_by_the_suite_cost_per_level():
    # The first sample landed at 2 s after 1 s of its own: 1 s of start-up. Level 2 costs three times
    # level 1, so 10 + 10 tasks cost 40 of the 4 measured: the 9 s after start-up scale by 10.
    landed = [bs.Landed(2.0, 1, 1.0, "pass"), bs.Landed(10.0, 2, 3.0, "pass")]
    est = bs.estimate({1: 10, 2: 10}, landed, wall_s=10.0)
    assert est["startup_s"] == pytest.approx(1.0)
    assert est["full_s"] == pytest.approx(91.0)
    assert est["interval_s"] == [pytest.approx(91.0), pytest.approx(91.0)]  # one sample per level
    # A level not reached costs the measured mean and is named.
    est = bs.estimate({1: 10, 2: 10, 3: 5}, landed, wall_s=10.0)
    assert est["unmeasured_levels"] == [3] and est["full_s"] == pytest.approx(1 + 9 * 50 / 4)


def test_interval_reflects_the_spread_within_a_level():
    landed = [bs.Landed(1.0 + i, 1, own, "pass") for i, own in enumerate((1.0, 1.0, 5.0, 1.0))]
    est = bs.estimate({1: 40}, landed, wall_s=5.0)
    low, high = est["interval_s"]
    assert low < est["full_s"] < high
    assert bs.estimate({1: 4}, [], wall_s=5.0)["full_s"] is None


def test_the_first_samples_wait_for_the_warm_workers_counts_once():
    """On the H200 the first 4 of 21 samples waited 16 s for the zygote: that wait is start-up, not
    the cost of every level-1 task."""
    waited = [bs.Landed(21.0, 1, 17.0, "pass", startup_s=16.2) for _ in range(2)]
    steady = [bs.Landed(21.0 + 1.0 * i, 1, 1.0, "pass", startup_s=0.2) for i in range(1, 5)]
    est = bs.estimate({1: 60}, waited + steady, wall_s=25.0)
    assert est["startup_s"] == pytest.approx(4.0 + 16.0)
    # Six samples of 1 s each took the 5 s after start-up: 60 tasks take 50 s more.
    assert est["full_s"] == pytest.approx(20.0 + 5.0 * 60 / 6)


def test_landed_verdicts_are_read_as_they_are_appended(tmp_path):
    from benchmark.verdict import Phases, Status, Verdict

    def line(task: str, alone: float) -> str:
        phases = Phases(total_s=2.0, startup_s=0.1, alone_s=alone)
        return Verdict(task, Status.PASS, level=1, phases=phases).to_json() + "\n"

    results = tmp_path / "results.jsonl"
    results.write_text(line("level1/a", 0.5) + line("level1/b", 0.25)[:30])  # the second still being written
    first = bs.read_landed(results, 0, at_s=3.0)
    assert [(x.at_s, x.level, x.own_s, x.status, x.startup_s, x.alone_s) for x in first] == [
        (3.0, 1, 2.0, "pass", 0.1, 0.5)
    ]
    results.write_text(line("level1/a", 0.5) + line("level1/b", 0.25))
    assert [x.alone_s for x in bs.read_landed(results, len(first), at_s=4.0)] == [0.25]
