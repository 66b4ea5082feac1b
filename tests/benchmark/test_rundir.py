"""benchmark.rundir: a resumed run keeps the settings its records were made with, timing included."""

from __future__ import annotations

import json

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
