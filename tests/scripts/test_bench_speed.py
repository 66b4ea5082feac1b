"""scripts/bench_speed.py without a GPU: the ratio's bootstrap interval, the table from the parts' JSON
files (a missing part reads `not measured`, every goal PASS or MISS), and the CPU mode end to end on
three parts (the suite, mix a and a stand-in KernelBench checkout)."""

from __future__ import annotations

import json
from pathlib import Path

import bench_speed as sp
import pytest


def test_ratio_and_its_interval():
    r = sp.ratio([40.0, 50.0, 60.0], ours_wall_s=10.0, ours_own=[1.0, 2.0, 3.0, 4.0, 5.0], seed=1)
    assert r["ours_s"] == 2.0 and r["theirs_s"] == 50.0 and r["ratio"] == 25.0
    low, high = r["interval"]
    assert low < 25.0 < high
    assert r == sp.ratio([40.0, 50.0, 60.0], 10.0, [1.0, 2.0, 3.0, 4.0, 5.0], seed=1)
    assert sp.ratio([], 10.0, [1.0]) is None and sp.ratio([1.0], 0.0, []) is None


def mix_file(
    out: Path, mix: str, arms: dict[str, tuple[int, float]], same: int, checked: int, n: int
) -> None:
    rows = {
        f"c{i}": {"status": "pass", "flags": [], "latency_s": 1.0, "own_s": 2.0, "error": ""}
        for i in range(n)
    }
    report = {
        "description": mix,
        "candidates": n,
        "expected": {"judged": n, "right": n, "unexpected": []},
        "identical": {"candidates": n, "checked": checked, "same": same, "differences": []},
        "arms": {},
    }
    for name, (done, wall) in arms.items():
        report["arms"][name] = {
            "arm": name,
            "candidates": n,
            "done": done,
            "wall_s": wall,
            "cut": done < n,
            "concurrency": "x",
            "per_gpu_hour": done / wall * 3600,
            "latency_p50_s": 1.0,
            "latency_p95_s": 2.0,
            "own_p50_s": 2.0,
            "own_p95_s": 2.0,
            "rows": dict(list(rows.items())[:done]),
        }
    (out / "verifier").mkdir(parents=True, exist_ok=True)
    (out / "verifier" / f"mix-{mix}.json").write_text(json.dumps(report))


def test_table_from_the_parts_files(tmp_path):
    mix_file(tmp_path, "a", {"pool": (40, 36.0), "check": (40, 80.0)}, 40, 40, 40)  # 4000/h
    mix_file(tmp_path, "b", {"pool": (20, 60.0), "warm": (32, 16.0), "check": (10, 30.0)}, 10, 10, 32)
    kb = {
        "kernelbench_commit": "423217d9",
        "settings": {"num_correct_trials": 5, "num_perf_trials": 100},
        "modes": {
            "cold": {
                "concurrency": 3,
                "not_reached": [],
                "samples": [
                    {"name": f"c{i}", "wall_s": w, "verdict": "pass"}
                    for i, w in enumerate((60.0, 66.0, 72.0))
                ],
            },
            "cached": {
                "concurrency": 1,
                "not_reached": ["c2"],
                "samples": [
                    {"name": "c0", "wall_s": 4.0, "verdict": "pass"},
                    {"name": "c1", "wall_s": 0.5, "verdict": "timeout"},
                ],
            },
        },
    }
    (tmp_path / "kernelbench").mkdir()
    (tmp_path / "kernelbench" / "kernelbench.json").write_text(json.dumps(kb))
    o = sp.Options(out=tmp_path, variant="v")
    s = sp.summarize(tmp_path, [{"part": "a", "rc": 0, "wall_s": 50.0}], o)
    assert s["mix_a"]["rate_pass"] and s["mix_a"]["identical_pass"]
    assert s["mix_b"]["rate_pass"] is False and s["mix_b"]["identical_pass"] is False  # 10 of 32 checked
    cold, cached = s["kernelbench"]["modes"]["cold"], s["kernelbench"]["modes"]["cached"]
    assert cold["ratio"]["ratio"] == pytest.approx(66.0 / 3.0) and cold["pass"]  # ours: 60 s / 20 verdicts
    assert cached["counted"] == 1 and cached["ratio"]["ratio"] == pytest.approx(4.0 / 0.5) and cached["pass"]
    text = sp.table(s)
    assert len(text.splitlines()) <= 25
    assert "(1) suite: not measured" in text and "c    not measured" in text
    assert ">= 3600/h PASS" in text and ">= 1400/h MISS" in text and "10/10 checked of 32 MISS" in text
    assert "22.0x" in text and "goal >= 20x PASS" in text


def test_cpu_mode_end_to_end(kernelbench_stand_in, tmp_path):
    out = tmp_path / "speed"
    assert (
        sp.main(
            [
                "--device",
                "cpu",
                "--tiny",
                "--parts",
                "suite",
                "a",
                "kernelbench",
                "--budget-s",
                "300",
                "--kernelbench",
                str(kernelbench_stand_in),
                "--kb-site",
                str(tmp_path),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    s = json.loads((out / "speed.json").read_text())
    assert [r["rc"] for r in s["parts"]] == [0, 0, 0], (out / "logs").iterdir()
    assert s["suite"]["full_suite"]["how"] == "measured" and s["suite"]["done"] == 2
    assert s["mix_a"]["identical_pass"] and s["mix_a"]["expected"]["right"] == 4
    assert set(s["kernelbench"]["modes"]) == {"cold", "cached"}  # no mix b here: no ratio, still listed
    table = (out / "speed.md").read_text()
    assert "whole suite" in table and "b    not measured" in table and "no ratio" in table
