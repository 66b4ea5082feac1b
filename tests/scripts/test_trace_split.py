"""scripts/trace_split.py on made-up traces: the per-run split of slow calls, and the resampled shift of
each estimator where the arms split differently."""

from __future__ import annotations

import gzip
import json
import random

import pytest
import trace_split


def noisy_run(rng: random.Random, p_ref: float, p_cand: float, rounds: int = 200) -> dict:
    """A reference 1.1x the candidate, each call 8% slow with its arm's chance, 0.5% noise."""

    def arm(base: float, p: float) -> list[float]:
        return [base * (1.08 if rng.random() < p else 1.0) * rng.gauss(1, 0.005) for _ in range(rounds)]

    return {"path": "spawned", "ratio": 1.1, "samples_ms": [arm(0.143, p_ref), arm(0.130, p_cand)]}


def test_split_counts_each_arms_slow_calls_and_the_rounds_both_were_slow():
    run = {"ratio": 1.0, "samples_ms": [[1.0, 1.0, 1.1, 1.1, 1.0], [1.0, 1.0, 1.1, 1.0, 1.0]]}
    got = trace_split.split_of(run, 0.04)
    assert (got["reference"], got["candidate"], got["both"]) == (0.4, 0.2, 0.2)
    assert got["independent"] == pytest.approx(0.08)


def test_the_paired_median_moves_with_an_uneven_split_and_the_fast_speed_medians_do_not(tmp_path):
    rng = random.Random(1)
    runs = [noisy_run(rng, 0.2, 0.2) for _ in range(4)]
    source = tmp_path / "traces.jsonl.gz"
    with gzip.open(source, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in runs)
    assert len(trace_split.load(source)) == 4
    table = {(r["reference"], r["candidate"]): r for r in trace_split.resampled(runs, 0.04, 60, 180, seed=0)}
    even, uneven = table[(0.2, 0.2)], table[(0.2, 0.5)]
    assert abs(even["paired median"][0]) < 0.002
    assert uneven["paired median"][0] < -0.002  # the candidate's extra slow calls pull the median down
    assert abs(uneven["fast-speed medians"][0]) < 0.002


def test_a_folder_of_traces_reads_like_the_archive(tmp_path):
    (tmp_path / "pool").mkdir()
    (tmp_path / "pool" / "1-a.json").write_text(json.dumps({"ratio": 1.0, "samples_ms": [[1.0], [1.0]]}))
    assert trace_split.load(tmp_path) == [{"path": "pool", "ratio": 1.0, "samples_ms": [[1.0], [1.0]]}]


def test_traces_without_slow_calls_are_refused():
    run = {"ratio": 1.0, "samples_ms": [[1.0] * 20, [1.0] * 20]}
    with pytest.raises(SystemExit, match="no slow calls"):
        trace_split.resampled([run], 0.04, 10, 20, seed=0)
