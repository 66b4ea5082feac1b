"""leaderboard.examples: the recorded completions and run commands stay consistent with the suite."""

from __future__ import annotations

from pathlib import Path

from benchmark.extract import extract_code
from benchmark.models.replay import read_replay
from benchmark.run import parse_args
from benchmark.suite import load_suite
from leaderboard.examples import COMPLETIONS, EXAMPLE_TASKS, EXAMPLES, run_argv


def test_example_tasks_exist_in_the_builtin_suite():
    names = {t.name for t in load_suite().tasks}
    assert set(EXAMPLE_TASKS) <= names


def test_replayed_completions_cover_every_sample():
    table = read_replay(COMPLETIONS)
    replay = next(e for e in EXAMPLES if e.model.startswith("replay:"))
    assert {(task, s) for task, s, _ in table} == {(t, s) for t in EXAMPLE_TASKS for s in range(replay.samples)}
    found = [extract_code(text).code is not None for text in table.values()]
    assert found.count(False) == 1  # exactly one completion without code


def test_run_argv_parses_as_a_benchmark_command(tmp_path):
    for example in EXAMPLES:
        args = parse_args(run_argv(example, tmp_path / example.folder))
        assert args.device == "cpu" and args.samples == example.samples and args.out == Path(tmp_path / example.folder)
        assert sorted(args.tasks) == sorted(EXAMPLE_TASKS) and 1 in args.k
