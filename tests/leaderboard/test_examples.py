"""leaderboard.examples: the recorded completions and run commands stay consistent with the suite."""

from __future__ import annotations

import shlex

from benchmark.extract import extract_code
from benchmark.models.replay import read_replay
from benchmark.run import config_from_args, parse_args
from benchmark.suite import load_suite
from leaderboard.examples import COMPLETIONS, EXAMPLE_TASKS, EXAMPLES, run_config


def test_example_tasks_exist_in_the_builtin_suite():
    names = {t.name for t in load_suite().tasks}
    assert set(EXAMPLE_TASKS) <= names


def test_replayed_completions_cover_every_sample():
    table = read_replay(COMPLETIONS)
    replay = next(e for e in EXAMPLES if e.model.startswith("replay:"))
    assert {(task, s) for task, s, _ in table} == {
        (t, s) for t in EXAMPLE_TASKS for s in range(replay.samples)
    }
    found = [extract_code(text).code is not None for text in table.values()]
    assert found.count(False) == 1  # exactly one completion without code


def test_the_recorded_command_gives_the_same_run(tmp_path):
    for example in EXAMPLES:
        for progress in (True, False):
            config = run_config(example, tmp_path / example.folder, progress)
            argv = shlex.split(config.command)[3:]
            assert config_from_args(parse_args(argv), argv) == config
            assert config.eval.device == "cpu" and config.sampling.samples == example.samples
            assert sorted(config.tasks) == sorted(EXAMPLE_TASKS) and 1 in config.ks
