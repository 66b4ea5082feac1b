"""experiments/recheck_dataset.py on the CPU: the seeded sample of one row per task, and benchmark.check's
verdict read back per row (an honest C++ solution passes, a broken one fails with its reason)."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest

from experiments import recheck_dataset as rd

ROOT = Path(__file__).resolve().parents[2]

SCALE_SHIFT = ROOT / "tests" / "benchmark" / "data" / "suite" / "level1" / "scale_shift.py"
HONEST = ROOT / "tests" / "honest" / "cpu_cpp_scale_shift.py"


@pytest.fixture
def dataset(tmp_path) -> Path:
    """A dataset folder in the published layout (configuration `sft`, split `train`): three tasks,
    one of them with two rows."""
    rows = [
        {
            "task_id": f"level1/t{i}",
            "level": 1,
            "task_code": SCALE_SHIFT.read_text(),
            "solution": HONEST.read_text(),
        }
        for i in (0, 1, 1, 2)
    ]
    folder = tmp_path / "ds"
    (folder / "data" / "sft").mkdir(parents=True)
    datasets.Dataset.from_list(rows).to_parquet(str(folder / "data" / "sft" / "train-0.parquet"))
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: sft\n  data_files:\n  - split: train\n    path: data/sft/train-*\n---\n"
    )
    return folder


def test_sample_takes_one_row_per_task_seeded(dataset):
    picked = rd.sample_rows(dataset, 2, seed=0)
    assert len({r["task_id"] for r in picked}) == 2
    assert [r["task_id"] for r in picked] == [r["task_id"] for r in rd.sample_rows(dataset, 2, seed=0)]
    assert sorted(r["task_id"] for r in rd.sample_rows(dataset, 10, seed=0)) == [
        "level1/t0",
        "level1/t1",
        "level1/t2",
    ]


@pytest.mark.slow
def test_check_row_reads_benchmark_checks_verdict(dataset):
    row = rd.sample_rows(dataset, 1, seed=0)[0]
    good = rd.check_row(row, "cpu", timing=False, timeout_s=300)
    assert good.passed and good.status == "pass" and good.error is None, good
    broken = rd.check_row({**row, "solution": "class ModelNew(:\n"}, "cpu", timing=False, timeout_s=300)
    assert not broken.passed and broken.status == "compile_error" and "SyntaxError" in broken.error, broken
    no_task = rd.check_row({**row, "task_code": "this is not python"}, "cpu", timing=False, timeout_s=300)
    assert not no_task.passed and no_task.status == "error" and "exit 2" in no_task.error, no_task
