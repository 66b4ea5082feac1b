"""Fixtures for the leaderboard tests: a known suite version, synthetic submissions, and a factory
for run directories written the way benchmark.runner writes them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import leaderboard_fakes as fakes
import pytest

from benchmark.rundir import RunDir
from benchmark.runner import summarize
from benchmark.verdict import Verdict
from leaderboard.submission import Submission
from leaderboard.suites import SuiteRegistry


@pytest.fixture
def registry() -> SuiteRegistry:
    return fakes.registry()


@pytest.fixture
def three_submissions() -> list[Submission]:
    return fakes.three_submissions()


@pytest.fixture
def make_run(tmp_path) -> Callable[..., Path]:
    """Write a run directory (run.json, results.jsonl, summary.json); keyword arguments override run.json,
    `broken` is the runner's broken_tasks (task id -> {"stage", "level", "reason"})."""
    counter = iter(range(1000))

    def factory(
        verdicts: list[Verdict] | None = None,
        *,
        model: str = "m",
        device: str = "cuda",
        samples: int = 2,
        tasks: list[str] | None = None,
        broken: dict | None = None,
        **run_overrides,
    ) -> Path:
        verdicts = fakes.default_verdicts(model, device, samples) if verdicts is None else verdicts
        path = tmp_path / f"run{next(counter)}"
        rundir = RunDir(path)
        info = fakes.run_info(model, device, samples, tasks if tasks is not None else list(fakes.TASKS))
        info.update(run_overrides)
        (path / "run.json").write_text(json.dumps({"format": 1, **info}, indent=2))
        for v in verdicts:
            rundir.append(v)
        summary = summarize(verdicts, tuple(sorted({1, samples})), broken, samples)
        summary.update(model=model, suite_version=info["suite_version"])
        rundir.write_summary(summary)
        return path

    return factory
