"""experiments/compare_runs.py: the last turn counts, tasks are paired, and the interval follows the data."""

from __future__ import annotations

import json
from pathlib import Path

from experiments import compare_runs


def write_run(path: Path, rows: list[tuple[str, int, int, str]]) -> Path:
    path.mkdir()
    lines = [json.dumps({"task_id": t, "sample": s, "turn": turn, "verdict": v}) for t, s, turn, v in rows]
    (path / "results.jsonl").write_text("\n".join(lines) + "\n")
    return path


def test_every_task_improving_gives_an_interval_above_zero(tmp_path):
    before = write_run(tmp_path / "b", [(f"t{i}", s, 1, "no_code") for i in range(6) for s in range(2)])
    after = write_run(
        tmp_path / "a",
        [(f"t{i}", 0, 1, "compile_error") for i in range(6)]
        + [(f"t{i}", 0, 2, "pass") for i in range(6)]  # the second turn is the sample's verdict
        + [(f"t{i}", 1, 1, "incorrect") for i in range(6)],
    )
    got = compare_runs.compare(before, after, resamples=2000)
    assert got["pass_rate_before"] == 0 and got["pass_rate_after"] == 0.5 and got["difference"] == 0.5
    assert got["ci95"] == [0.5, 0.5]
    assert got["verdicts_after"] == {"pass": 6, "incorrect": 6}


def test_mixed_changes_give_an_interval_spanning_zero_and_only_shared_tasks_count(tmp_path):
    before = write_run(tmp_path / "b", [("a", 0, 1, "pass"), ("b", 0, 1, "incorrect"), ("c", 0, 1, "pass")])
    after = write_run(tmp_path / "a", [("a", 0, 1, "incorrect"), ("b", 0, 1, "pass")])
    got = compare_runs.compare(before, after, resamples=2000)
    assert got["tasks"] == ["a", "b"] and got["difference"] == 0
    low, high = got["ci95"]
    assert low == -1 and high == 1
