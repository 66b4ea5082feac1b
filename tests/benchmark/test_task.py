"""Staging a task where its own path cannot be read (a Ray node): same task, a file of its own."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from benchmark.task import TaskLoadError, load_task, stage_task


def test_a_staged_task_is_the_same_task_in_a_file_of_its_own(data_dir, tmp_path):
    suite = tmp_path / "suite"
    (suite / "level1").mkdir(parents=True)
    original = Path(shutil.copy(data_dir / "suite" / "level1" / "scale_shift.py", suite / "level1"))
    task = load_task(original, root=suite)
    original.unlink()
    staged = stage_task(task, tmp_path / "node")
    assert (
        staged.path.is_file() and staged.path.is_relative_to(tmp_path / "node") and staged.name == task.name
    )
    assert (staged.task_id, staged.level, staged.meta, staged.hash) == (
        "level1/scale_shift",
        1,
        task.meta,
        task.hash,
    )
    assert staged.load_module().get_inputs()[0].shape == (64, 33)
    assert stage_task(task, tmp_path / "node") == staged  # once written, reused
    other = stage_task(dataclasses.replace(task, source=task.source + "\n# changed\n"), tmp_path / "node")
    assert other.path != staged.path and other.path.name == staged.path.name  # same name, other source


def _task_with(tmp_path, meta: str) -> Path:
    path = tmp_path / "level1" / "t.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"SOLBENCH = {meta}\nclass Model: pass\ndef get_inputs(): return []\ndef get_init_inputs(): return []\n"
    )
    return path


def test_requires_names_known_device_features(tmp_path):
    assert load_task(_task_with(tmp_path, '{"requires": ["fp8"]}')).requires == ("fp8",)
    assert load_task(_task_with(tmp_path, '{"level": 1}')).requires == ()
    with pytest.raises(TaskLoadError, match=r"unknown SOLBENCH requirements \['tf64'\]; known: \['fp8'\]"):
        load_task(_task_with(tmp_path, '{"requires": ["fp8", "tf64"]}'))
    with pytest.raises(TaskLoadError, match="must be a list of names"):
        load_task(_task_with(tmp_path, '{"requires": "fp8"}'))
