"""Suites from folders: levels from folder names, selection, spec resolution and the list/validate CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.suite import BUILTIN_SUITE, load_suite, resolve_suite
from benchmark.suite.cli import main

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tasks"


def test_kernelbench_folder_levels_come_from_folder_names():
    suite = load_suite(FIXTURES / "good")
    by_id = {t.task_id: t for t in suite.tasks}
    assert set(by_id) == {"level1/row_softmax", "level1/scale_shift_bf16", "level2/linear_tanh_sum"}
    assert by_id["level2/linear_tanh_sum"].level == 2  # no SOLBENCH metadata: from the folder
    assert by_id["level1/row_softmax"].dtype == "float32"
    assert by_id["level1/scale_shift_bf16"].tags == ("elementwise", "broadcast")
    assert [t.task_id for t in suite.select(levels=[2])] == ["level2/linear_tanh_sum"]
    assert [t.name for t in suite.select(patterns=["*softmax*"])] == ["row_softmax"]
    assert suite.version == load_suite(str(FIXTURES / "good")).version


def test_unreadable_files_are_reported_not_fatal():
    suite = load_suite(FIXTURES / "bad")
    assert any("no_model.py" in e and "does not define Model" in e for e in suite.errors)
    assert "level1/zero_output" in {t.task_id for t in suite.tasks}


def test_resolve_suite():
    assert resolve_suite(None) == BUILTIN_SUITE
    assert resolve_suite(FIXTURES / "good") == FIXTURES / "good"
    with pytest.raises(FileNotFoundError, match="does not exist"):
        resolve_suite(FIXTURES / "nope")
    with pytest.raises(ValueError, match="hf:ORG/NAME"):
        resolve_suite("hf:not-a-repo-id")


def test_list_command(capsys):
    assert main(["list", "--suite", str(FIXTURES / "good"), "--level", "1"]) == 0
    out = capsys.readouterr().out
    assert "level1/row_softmax" in out and "level2/" not in out and "2 tasks" in out
    header, *rows = out.splitlines()
    assert header.split() == ["task", "level", "dtype", "difficulty", "tags"]
    bf16 = next(r for r in rows if r.startswith("level1/scale_shift_bf16"))
    # each value sits under its column's name, and the legend says what the columns hold
    assert bf16[header.index("level") :].startswith("1 ") and bf16[header.index("dtype") :].startswith(
        "bfloat16"
    )
    assert bf16[header.index("tags") :] == "elementwise,broadcast"
    assert "difficulty 1 (easy) to 3 (hard)" in out
    assert main(["list", "--suite", str(FIXTURES / "good"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["task_id"] for r in rows} >= {"level2/linear_tanh_sum"}


def test_validate_command_on_an_external_folder(tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(
        [
            "validate",
            "--suite",
            str(FIXTURES / "good"),
            "--device",
            "cpu",
            "--fast",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    report = json.loads((out / "validate.json").read_text())
    assert len(report["reports"]) == 3 and all(r["ok"] for r in report["reports"])
    assert "3 passed, 0 failed" in capsys.readouterr().out
    assert (out / "validate.log").is_file() and (out / "validate.txt").is_file()


def test_validate_command_fails_on_a_bad_task(tmp_path):
    json_out = tmp_path / "v.json"
    rc = main(
        [
            "validate",
            "--suite",
            str(FIXTURES / "bad"),
            "--device",
            "cpu",
            "--fast",
            "--quiet",
            "--tasks",
            "zero_output",
            "--json-out",
            str(json_out),
        ]
    )
    assert rc == 1
    reports = json.loads(json_out.read_text())["reports"]
    ids = {r["task_id"]: r for r in reports}
    assert not ids["level1/zero_output"]["ok"]
    assert any("no_model.py" in i for i in ids)  # unreadable files count as failures too
