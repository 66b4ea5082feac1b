"""benchmark.rundir: a resumed run keeps the settings its records were made with, timing included."""

from __future__ import annotations

import json
import re

import pytest

from benchmark.rundir import RunDir


def info(**kw) -> dict:
    return {
        "command": "python -m benchmark.run",
        "started": "2026-11-20T10:00:00+00:00",
        "model": "m",
        "suite_version": "feedc0de00000001",
        "device": "cuda",
        "timing": True,
        **kw,
    }


def test_resume_with_the_same_settings_is_recorded(tmp_path):
    rundir = RunDir(tmp_path)
    rundir.write_run_info(info(timing=False))
    rundir.write_run_info(info(timing=False, started="2026-11-21T10:00:00+00:00"))
    record = rundir.run_info()
    assert record["timing"] is False and record["resumed"] == [
        {"command": "python -m benchmark.run", "started": "2026-11-21T10:00:00+00:00"}
    ]


@pytest.mark.parametrize("first, then", [(True, False), (False, True)])
def test_resume_refuses_to_mix_timed_and_untimed_samples(tmp_path, first, then):
    rundir = RunDir(tmp_path)
    rundir.write_run_info(info(timing=first))
    with pytest.raises(
        ValueError, match=f"holds a run with timing={first}, not {then}: resume it with the same"
    ):
        rundir.write_run_info(info(timing=then))
    assert "resumed" not in rundir.run_info()


def legacy(tmp_path) -> RunDir:
    """A run.json written before run.json recorded timing."""
    record = {"format": 1, **info()}
    del record["timing"]
    (tmp_path / "run.json").write_text(json.dumps(record))
    return RunDir(tmp_path)


def test_run_from_before_timing_was_recorded_resumes_timed(tmp_path):
    rundir = legacy(tmp_path)
    rundir.write_run_info(info(timing=True))
    assert len(rundir.run_info()["resumed"]) == 1


def test_run_from_before_timing_was_recorded_refuses_an_untimed_resume(tmp_path):
    with pytest.raises(ValueError, match=r"timing=True \(not recorded in run.json: the default\), not False"):
        legacy(tmp_path).write_run_info(info(timing=False))


def test_other_settings_are_still_refused_by_name(tmp_path):
    rundir = RunDir(tmp_path)
    rundir.write_run_info(info())
    with pytest.raises(ValueError, match="holds a run with device='cuda', not 'cpu'"):
        rundir.write_run_info(info(device="cpu"))


def test_a_run_of_another_suite_is_refused_naming_both_suites(tmp_path):
    rundir = RunDir(tmp_path)
    rundir.write_run_info(info(suite="builtin"))
    other = info(suite="/data/kernelbench/level1", suite_version="0123456789abcdef")
    with pytest.raises(ValueError) as refused:
        rundir.write_run_info(other)
    assert (
        "holds a run with suite 'builtin' (suite_version='feedc0de00000001'), not suite "
        "'/data/kernelbench/level1' (suite_version='0123456789abcdef'): resume it" in str(refused.value)
    )
    with pytest.raises(ValueError, match="; its task files changed since: resume it"):
        rundir.write_run_info(info(suite="builtin", suite_version="0123456789abcdef"))


def full_info(**kw) -> dict:
    """A run.json as the runner writes it today, with every setting a resume compares."""
    settings = {
        "sampling": {"samples": 1, "temperature": 0.0, "top_p": 1.0, "max_tokens": 8192, "seed": None},
        "turns": 1,
        "prompt": {"prompt": "default", "backend": "cuda", "reasoning": None, "templates_sha256": "ab12"},
        "backend": {"backend": "openai", "model": "m", "endpoint": "http://x/v1", "concurrency": 8},
        "evaluation": {"trials": 5, "seed": 0, "baseline": "eager", "strict": True, "timeout_s": 300.0},
    }
    for name, value in kw.items():
        group, _, field = name.partition("__")
        if field:
            settings[group] = {**settings[group], field: value}
        else:
            settings[group] = value
    return info(**settings)


@pytest.mark.parametrize(
    "change, named",
    [
        ({"sampling__temperature": 0.7}, "sampling.temperature=0.0, not 0.7"),
        ({"sampling__seed": 3}, "sampling.seed=None, not 3"),
        ({"turns": 2}, "turns=1, not 2"),
        ({"prompt__templates_sha256": "cd34"}, "prompt.templates_sha256='ab12', not 'cd34'"),
        ({"backend__endpoint": "http://y/v1"}, "backend.endpoint='http://x/v1', not 'http://y/v1'"),
        ({"evaluation__trials": 3}, "evaluation.trials=5, not 3"),
        ({"evaluation__strict": False}, "evaluation.strict=True, not False"),
    ],
)
def test_resume_refuses_any_change_that_changes_results_naming_it(tmp_path, change, named):
    rundir = RunDir(tmp_path)
    rundir.write_run_info(full_info())
    with pytest.raises(ValueError, match=re.escape(f"holds a run with {named}")):
        rundir.write_run_info(full_info(**change))
    assert "resumed" not in rundir.run_info()


def test_more_samples_and_another_concurrency_may_continue_a_run(tmp_path):
    rundir = RunDir(tmp_path)
    rundir.write_run_info(full_info())
    rundir.write_run_info(full_info(sampling__samples=8, backend__concurrency=32))
    assert len(rundir.run_info()["resumed"]) == 1


def test_settings_an_older_run_json_lacks_are_not_compared(tmp_path):
    rundir = RunDir(tmp_path)
    rundir.write_run_info(info())  # written before sampling, prompt, backend and evaluation were recorded
    rundir.write_run_info(full_info())
    assert len(rundir.run_info()["resumed"]) == 1


def test_run_info_is_the_schema_the_leaderboard_requires():
    from benchmark.rundir import RUN_REQUIRED, RunInfo

    assert RUN_REQUIRED["tasks"] is list and RUN_REQUIRED["strict"] is bool
    assert not {"started", "turns", "prompt", "timing", "evaluation", "lanes"} & set(RUN_REQUIRED)
    with pytest.raises(TypeError):
        RunInfo(command="x")  # the required fields have no default


def test_generating_compiled_may_continue_a_run_begun_without_it(tmp_path):
    """`--compile` changes how fast an hf model answers, not what it answers: a run recorded before the
    backend described it, or without it, continues with it."""
    rundir = RunDir(tmp_path)
    rundir.write_run_info(full_info())
    rundir.write_run_info(full_info(backend__compile=True))
    assert len(rundir.run_info()["resumed"]) == 1
