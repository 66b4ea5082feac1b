"""The summary table's "over best" column: the geometric mean of each correct sample against its
task's best production baseline, with its legend line; blank, and said so, without baselines."""

from __future__ import annotations

from benchmark import runner
from benchmark.verdict import Status, Verdict


def verdict(task: str, speedup: float) -> Verdict:
    return Verdict(task_id=task, sample=0, status=Status.PASS, level=1, speedup=speedup, speedup_spread=0.0)


def test_over_best_column_and_legend():
    vs = [verdict("level1/a", 3.0), verdict("level1/b", 1.0)]
    best = {"level1/a": ("sdpa_flash", 1.5)}
    summary = runner.summarize(vs, (1,), baselines=best, baselines_on="NVIDIA H200")
    assert summary["metrics"]["overall"]["geomean_over_best"] == 2.0
    assert summary["baselines"] == {
        "gpu": "NVIDIA H200",
        "tasks": {"level1/a": {"name": "sdpa_flash", "speedup": 1.5}},
    }
    table = runner.format_table(summary)
    head, row = table.splitlines()[0], table.splitlines()[2]
    assert "over best" in head and row.split()[-2] == "2.000"
    legend = [line for line in table.splitlines() if line.startswith("over best ")]
    assert len(legend) == 1 and "best production baseline" in legend[0] and "NVIDIA H200" in legend[0]


def test_over_best_blank_without_baselines():
    summary = runner.summarize([verdict("level1/a", 3.0)], (1,), baselines_on=None)
    table = runner.format_table(summary)
    row = table.splitlines()[2]
    assert row.endswith("n/a") or not row.rstrip().endswith("]")
    legend = [line for line in table.splitlines() if line.startswith("over best ")]
    assert len(legend) == 1 and "no production baselines" in legend[0]


def test_old_summary_without_baselines_formats():
    summary = runner.summarize([verdict("level1/a", 3.0)], (1,))
    del summary["baselines"]
    for m in summary["metrics"].values():
        del m["geomean_over_best"]
    assert "no production baselines" in runner.format_table(summary)
