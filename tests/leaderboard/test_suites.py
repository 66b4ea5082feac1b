"""leaderboard.suites: suite versions are recorded with their tasks and read back unchanged."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from benchmark.suite import load_suite
from leaderboard import suites
from leaderboard.suites import SuiteRegistry, record

SUITE = Path(__file__).parent / "data" / "suite"


def test_record_and_load_round_trip(tmp_path):
    path = tmp_path / "versions.json"
    suite = load_suite(SUITE)
    entry = record(suite, path, source="tests")
    assert entry.version == suite.version
    record(suite, path, source="tests")  # idempotent
    registry = SuiteRegistry.load(path, include_builtin=False)
    assert list(registry.versions) == [suite.version]
    loaded = registry.get(suite.version)
    assert loaded.tasks == entry.tasks and loaded.source == "tests"
    info = loaded.tasks["level1/scale_shift"]
    assert (info.level, info.tags, info.hash) == (1, ("elementwise",), suite.tasks[0].hash)
    assert loaded.level_tasks(1) == ["level1/scale_shift"] and loaded.level_tasks(2) == []
    # one line per task keeps the file readable
    assert sum('"level1/scale_shift"' in line for line in path.read_text().splitlines()) == 1


def test_builtin_suite_is_always_known(tmp_path):
    registry = SuiteRegistry.load(tmp_path / "absent.json")
    assert registry.get(load_suite().version) is not None


def test_unreadable_versions_file_names_itself(tmp_path):
    (tmp_path / "v.json").write_text("{")
    with pytest.raises(ValueError, match=r"v\.json: not valid JSON"):
        SuiteRegistry.load(tmp_path / "v.json", include_builtin=False)


def test_committed_versions_file_is_valid():
    raw = json.loads(suites.SUITE_VERSIONS_PATH.read_text())
    for version, entry in raw["versions"].items():
        assert len(version) == 16 and entry["tasks"], version
        assert all({"level", "tags", "hash"} <= set(t) for t in entry["tasks"].values())


def test_cli_lists_versions(tmp_path, capsys):
    path = tmp_path / "versions.json"
    assert suites.main(["--record", "--suite", str(SUITE), "--file", str(path)]) == 0
    assert suites.main(["--suite", str(SUITE), "--file", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{load_suite(SUITE).version}  " in out and "1 tasks (level1: 1)" in out


def test_a_version_is_named_by_its_size_date_and_what_it_changed(tmp_path, capsys):
    path = tmp_path / "versions.json"
    assert suites.main(["--record", "--suite", str(SUITE), "--file", str(path), "--name", "one task"]) == 0
    entry = SuiteRegistry.load(path, include_builtin=False).get(load_suite(SUITE).version)
    assert entry.name == "one task" and entry.label == f"1 tasks, {entry.recorded}: one task"
    assert replace(entry, name="").label == f"1 tasks, {entry.recorded}"
    assert suites.main(["--suite", str(SUITE), "--file", str(path)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("1 tasks (level1: 1)  one task")
    assert SuiteRegistry({}).label("0123456789abcdef").startswith("not recorded")
