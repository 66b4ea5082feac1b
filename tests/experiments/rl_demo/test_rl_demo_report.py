"""experiments.rl_demo.report: the tables of RL arms and of SFT arms, with the claim rule."""

from __future__ import annotations

from rl_demo_support import (
    AFTER,
    BEFORE,
    arm,
    row,
    sft_arms,
    split_result,
)

from experiments.rl_demo import (
    metrics,
    report,
)


def test_the_table_shows_each_arms_difference_and_the_rule():
    results = {
        "data": {"test": 12},
        "before": {split: split_result(BEFORE) for split in ("rl", "test")},
        "arms": {
            "full": arm(BEFORE, AFTER),
            "no_bdr": arm(BEFORE, BEFORE),
            "no_mirrorpop": {"skipped": "budget"},
        },
    }
    stored = results["arms"]["full"]["differences"]
    assert set(stored) == {"rl", "test"} and set(stored["test"]) == set(metrics.METRICS)
    assert stored["test"]["fast_1"]["improved"] and len(stored["test"]["fast_1"]["interval"]) == 2
    md = report.tables(results)
    assert "after - before RL (paired bootstrap 95% over 12 tasks)" in md
    assert row(md, "| full | +33 pp").count("improved") == 3
    no_change = row(md, "| no_bdr | +0 pp")
    assert no_change.count("no change shown") == 3 and "improved" not in no_change
    assert "| no_mirrorpop | skipped (budget) |" in md
    assert "claimed only where the 95% interval excludes zero" in md


def test_the_sft_tables_show_each_run_each_arms_spread_over_seeds_and_its_difference_from_plain():
    results = {
        "data": {"test": 12},
        "sft_arms": sft_arms(
            {
                "plain": {0: BEFORE, 1: AFTER},
                "cuset": {0: AFTER, 1: AFTER},
                "cuset_no_masking": {0: BEFORE},
                "cuset_no_regions": {0: {"skipped": "budget"}},
            }
        ),
    }
    md = report.tables(results)
    assert "| plain | 0 | 6 | 1.5000 | 50% | 0.71 | 0% |" in md and "| plain | 1 | 6 | 1.5000 | 83% |" in md
    assert row(md, "| cuset | 0 | 6 | 0.2500 | 83% |")
    assert "| cuset_no_regions | 0 | skipped (budget) |" in md
    assert "| plain | 2 | 67% | 50%-83% |" in md and "| cuset | 2 | 83% | 83%-83% |" in md
    assert "arm - plain SFT (two-level paired bootstrap 95% over training seeds and 12 test tasks)" in md
    assert row(md, "| cuset | 2 / 2 | +17 pp")
    assert row(md, "| cuset_no_masking | 1 / 2 (one seed on a side")
    assert not any(line.startswith("| plain | 2 /") for line in md.splitlines())
    assert "then the test tasks with replacement, the same tasks for both arms" in md
    assert "claimed only where the 95% interval excludes zero" in md
    assert "RL steps" not in md
