"""experiments/bench_sft.py's summary without training: CuSeT's overhead and its bootstrap interval."""

from __future__ import annotations

import pytest

from experiments import bench_sft as bs


def run(cuset: bool, steps: list[float]) -> dict:
    return {
        "cuset": cuset,
        "step_s_all": steps,
        "tokens_per_step": 100,
        "peak_memory_gib": 1.0,
        "tokens_per_s": 100 / (sum(steps) / len(steps)),
    }


def test_overhead_interval_covers_the_true_overhead_and_excludes_none_when_there_is_one():
    plain = [0.2 + 0.002 * (i % 5) for i in range(60)]
    same = bs.overhead_interval(plain, list(reversed(plain)))
    assert same[0] < 0 < same[1]
    slower = bs.overhead_interval(plain, [1.1 * t for t in plain])
    assert 9.0 < slower[0] < 10.0 < slower[1] < 11.0


def test_summary_reports_the_overhead_with_its_interval():
    runs = [run(False, [0.2] * 30), run(True, [0.21] * 30), run(True, [0.21] * 30), run(False, [0.2] * 30)]
    s = bs.summarize(runs)
    assert s["overhead_pct"] == pytest.approx(5.0)
    assert s["overhead_pct_mean_step_interval"] == pytest.approx([5.0, 5.0])
