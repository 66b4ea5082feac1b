"""The suite as a dataset and back, through a local Hub cache in offline mode."""

from __future__ import annotations

import shutil
from pathlib import Path

import datasets
import pytest
from huggingface_hub import constants
from test_manifest import GPU, profile, report

from benchmark.suite import load_suite
from benchmark.suite.dataset import export_suite, materialize, suite_to_dataset, suite_to_dataset_dict
from benchmark.suite.manifest import Manifest, load_manifest, manifest_path_for, merge

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tasks"


@pytest.fixture
def measured_suite(tmp_path):
    root = tmp_path / "suite"
    shutil.copytree(FIXTURES / "good", root)
    suite = load_suite(root)
    merge(Manifest(), suite, [report(t.task_id) for t in suite.tasks], GPU, profile()).save(
        manifest_path_for(root)
    )
    return suite


def fake_hub(tmp_path: Path, suite, repo: str = "org/suite") -> Path:
    """Lay the exported suite out as the Hub cache would after a download."""
    hub = tmp_path / "hub"
    folder = hub / ("datasets--" + repo.replace("/", "--"))
    commit = "0123456789abcdef" * 2 + "01234567"
    export_suite(suite, folder / "snapshots" / commit)
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text(commit)
    return hub


def test_dataset_columns(measured_suite):
    ds = suite_to_dataset(measured_suite)
    assert {"code", "level", "name", "problem_id"} <= set(ds.column_names)  # KernelBench's columns
    assert {"tags", "dtype", "difficulty", "flops", "bytes", "sol_ms"} <= set(ds.column_names)
    row = next(r for r in ds if r["task_id"] == "level2/linear_tanh_sum")
    assert row["level"] == 2 and row["problem_id"] == 1 and row["name"] == "linear_tanh_sum"
    assert row["sol_ms"] == [{"gpu": "test-gpu-9000", "ms": pytest.approx(1.0)}]
    assert row["code"] == (measured_suite.root / "level2" / "linear_tanh_sum.py").read_text()
    assert sorted(suite_to_dataset_dict(measured_suite)) == ["level_1", "level_2"]


def test_hub_suite_round_trip_offline(measured_suite, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("SOLBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(fake_hub(tmp_path, measured_suite)))
    loaded = load_suite("hf:org/suite")
    assert loaded.root.is_relative_to(tmp_path / "cache")
    assert loaded.version == measured_suite.version  # same ids, same file contents
    assert {t.task_id: t.level for t in loaded.tasks} == {t.task_id: t.level for t in measured_suite.tasks}
    task = next(t for t in loaded.tasks if t.task_id == "level1/row_softmax")
    assert load_manifest(manifest_path_for(loaded.root)).sol_ms(task, GPU) == pytest.approx(1.0)
    assert load_suite("hf:org/suite").root == loaded.root  # materialised once per dataset commit
    with pytest.raises(Exception, match="(?i)cannot find|not found|offline"):
        load_suite("hf:org/missing")


def test_kernelbench_style_rows_materialise_into_level_folders(tmp_path):
    code = "import torch\nclass Model(torch.nn.Module):\n    pass\ndef get_inputs():\n    return []\ndef get_init_inputs():\n    return []\n"
    ds = datasets.DatasetDict(
        {
            "level_1": datasets.Dataset.from_list(
                [{"code": code, "level": 1, "name": "1_Square_matmul_.py", "problem_id": 1}]
            ),
            "level_3": datasets.Dataset.from_list(
                [{"code": code, "level": 3, "name": "7 Odd/Name", "problem_id": 7}]
            ),
        }
    )
    root = materialize(ds, tmp_path / "kb")
    suite = load_suite(root)
    assert {t.task_id: t.level for t in suite.tasks} == {"level1/1_Square_matmul_": 1, "level3/7_Odd_Name": 3}
    assert not manifest_path_for(root).exists()  # no measurements in these rows


def test_unsafe_task_ids_are_refused(tmp_path):
    ds = datasets.Dataset.from_list(
        [{"code": "x = 1\n", "level": 1, "name": "x", "problem_id": 1, "task_id": "../escape"}]
    )
    with pytest.raises(ValueError, match="unsafe task_id"):
        materialize(ds, tmp_path / "out")
    assert not (tmp_path / "escape.py").exists()
