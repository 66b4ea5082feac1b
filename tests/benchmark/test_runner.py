"""`benchmark.run`: reference and replay models, resume, broken tasks, bad replay files."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import shutil
import time

import pytest
from tqdm import tqdm

import benchmark.runner as runner
from benchmark.evaluate import activity
from benchmark.evaluate.harness import EvalConfig
from benchmark.host import host_device_lock
from benchmark.models.replay import ReplayError
from benchmark.run import main as run_main
from benchmark.rundir import RunDir
from benchmark.runner import RunConfig, SamplingParams, run


@pytest.fixture
def suite_dir(data_dir):
    return data_dir / "suite"


def config(tmp_path, suite_dir, fast_eval, model="reference", **kw):
    return RunConfig(
        model=model, out=tmp_path / "run", suite=str(suite_dir), eval=fast_eval, progress=False, **kw
    )


def test_reference_run_passes_and_resumes(tmp_path, suite_dir, fast_eval, monkeypatch):
    cfg = config(tmp_path, suite_dir, fast_eval, sampling=SamplingParams(samples=2))
    summary = run(cfg)
    overall = summary["metrics"]["overall"]
    assert overall["tasks"] == 2 and overall["samples"] == 4
    assert overall["avg_at_k"] == 1.0
    assert 0.5 < overall["geomean_speedup"] < 2.0  # the reference against itself
    lines = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["model"] == "reference" and info["suite_version"] and "torch" in info["environment"]

    calls = []
    monkeypatch.setattr(runner.Verifier, "submit_request", lambda self, req: calls.append(req))
    again = run(cfg)
    assert calls == []  # nothing re-evaluated
    assert again["metrics"]["overall"]["samples"] == 4
    assert len(json.loads((tmp_path / "run" / "run.json").read_text())["resumed"]) == 1


def test_killed_mid_line_record_is_redone(tmp_path, suite_dir, fast_eval):
    cfg = config(tmp_path, suite_dir, fast_eval, tasks=("scale_shift",))
    run(cfg)
    results = tmp_path / "run" / "results.jsonl"
    whole = results.read_text()
    results.write_text(whole[: len(whole) // 2])  # the record a kill cut short
    summary = run(cfg)
    assert summary["metrics"]["overall"]["samples"] == 1
    assert json.loads(results.read_text().splitlines()[-1])["verdict"] == "pass"


def test_replay_run_mixed_verdicts(tmp_path, suite_dir, data_dir, fast_eval):
    correct = (data_dir / "candidates" / "torch_correct.py").read_text()
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"task_id": "level1/scale_shift", "completion": f"Here you go:\n```python\n{correct}```"},
                {"task_id": "level1/scale_shift", "completion": "I cannot do that."},
                {
                    "task": "row_sum",
                    "completion": "```python\nimport torch\nclass ModelNew(torch.nn.Module):\n"
                    "    def __init__(self, dim):\n        super().__init__()\n"
                    "    def forward(self, x):\n        return x.sum(-1) + 1\n```",
                },
            ]
        )
    )
    cfg = config(tmp_path, suite_dir, dataclasses.replace(fast_eval, strict=False), model=f"replay:{replay}")
    cfg = dataclasses.replace(cfg, sampling=SamplingParams(samples=2))
    run(cfg)
    records = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    by_key = {(r["task_id"], r["sample"]): r for r in records}
    assert by_key[("level1/scale_shift", 0)]["verdict"] == "pass"
    assert by_key[("level1/scale_shift", 1)]["verdict"] == "no_code"
    assert by_key[("level1/row_sum", 0)]["verdict"] == "incorrect"
    assert by_key[("level1/row_sum", 1)]["verdict"] == "no_code"  # nothing recorded for sample 1


def test_replay_lines_outside_the_selection_are_named(tmp_path, suite_dir, fast_eval, caplog):
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        "\n".join(
            json.dumps({"task_id": t, "completion": "no code"})
            for t in ("level1/scale_shift", "level1/not_in_the_suite", "level9/typo")
        )
    )
    cfg = config(tmp_path, suite_dir, fast_eval, model=f"replay:{replay}", tasks=("scale_shift",))
    with caplog.at_level("WARNING", logger="benchmark.runner"):
        run(cfg)
    warned = [r.getMessage() for r in caplog.records if "not in this run's selection" in r.getMessage()]
    assert len(warned) == 1 and warned[0].startswith("2 task(s)")
    assert warned[0].endswith("level1/not_in_the_suite, level9/typo")


def test_broken_task_does_not_stop_the_run(tmp_path, data_dir, fast_eval):
    suite = tmp_path / "suite" / "level1"
    suite.mkdir(parents=True)
    (suite / "scale_shift.py").write_text((data_dir / "suite" / "level1" / "scale_shift.py").read_text())
    (suite / "broken.py").write_text((data_dir / "broken_task.py").read_text())
    summary = run(config(tmp_path, suite.parent, fast_eval))
    assert set(summary["broken_tasks"]) == {"level1/broken"}
    broken = summary["broken_tasks"]["level1/broken"]
    assert broken["stage"] == "reference" and broken["level"] == 1
    assert "broken.py" in broken["reason"] and "broken on purpose" in broken["reason"]
    overall = summary["metrics"]["overall"]
    assert overall["tasks"] == 2 and overall["avg_at_k"] == 0.5  # the broken task counts, as failed


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "holds no completions"),
        ("not json at all\n", "not valid JSON"),
        ('{"task_id": 3}\n', "needs string fields"),
    ],
)
def test_bad_replay_files(tmp_path, content, message):
    replay = tmp_path / "r.jsonl"
    replay.write_text(content)
    from benchmark.models import get_backend

    with pytest.raises(ReplayError, match=message):
        get_backend(f"replay:{replay}")


def test_only_the_reference_backend_is_trusted(tmp_path):
    from benchmark.models import get_backend, is_trusted

    replay = tmp_path / "r.jsonl"
    replay.write_text(json.dumps({"task_id": "t", "sample": 0, "completion": "x"}) + "\n")
    assert is_trusted("reference") and get_backend("reference").trusted
    assert not is_trusted(f"replay:{replay}") and not get_backend(f"replay:{replay}").trusted
    assert not is_trusted("openai:gpt") and not is_trusted("nonsense")


def test_cli_reports_bad_replay_as_usage_error(tmp_path, capsys):
    replay = tmp_path / "r.jsonl"
    replay.write_text("garbage")
    assert (
        run_main(["--model", f"replay:{replay}", "--device", "cpu", "--out", str(tmp_path / "o"), "--quiet"])
        == 2
    )
    assert "not valid JSON" in capsys.readouterr().err


def test_cli_help(capsys):
    with pytest.raises(SystemExit) as e:
        run_main(["--help"])
    assert e.value.code == 0
    assert "--model" in capsys.readouterr().out


def test_resume_refuses_a_changed_suite_or_model(tmp_path, suite_dir, fast_eval):
    suite = tmp_path / "suite"
    shutil.copytree(suite_dir, suite)
    cfg = dataclasses.replace(
        config(tmp_path, suite_dir, fast_eval, tasks=("scale_shift",)), suite=str(suite)
    )
    run(cfg)
    task = suite / "level1" / "scale_shift.py"
    task.write_text(task.read_text() + "\n# edited\n")
    with pytest.raises(ValueError, match="suite_version="):
        run(cfg)
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"task_id": "level1/scale_shift", "completion": "no code"}) + "\n")
    task.write_text(task.read_text().replace("\n# edited\n", ""))
    with pytest.raises(ValueError, match="model='reference'"):
        run(dataclasses.replace(cfg, model=f"replay:{replay}"))
    assert run(cfg)["metrics"]["overall"]["samples"] == 1  # the unchanged suite resumes


def test_generation_locks_are_the_verifiers_locks_of_the_timed_gpus(tmp_path, monkeypatch):
    def locks(device, gpus=None):
        return runner.generation_locks(
            RunConfig(model="reference", out=tmp_path, eval=EvalConfig(device=device), gpus=gpus)
        )

    assert locks("cuda", gpus=(1, 3)) == ((1, host_device_lock(1)), (3, host_device_lock(3)))
    from benchmark.verify import verifier

    monkeypatch.setattr(verifier, "visible_gpus", lambda: [0, 1])
    assert locks("cuda") == ((0, host_device_lock(0)), (1, host_device_lock(1)))
    assert locks("cpu") == ()


@pytest.mark.parametrize("on_gpu", [False, True], ids=["cpu", "gpu-locks-stubbed"])
def test_the_backend_is_given_the_generation_locks(tmp_path, suite_dir, fast_eval, monkeypatch, on_gpu):
    """A CPU run gives the backend no lock; otherwise the backend gets what generation_locks names."""
    stub = ((0, str(tmp_path / "locks" / "device-0")),)
    if on_gpu:
        monkeypatch.setattr(runner, "generation_locks", lambda config: stub)
    given, real = [], runner.get_backend

    def spy(model, sampling, options):
        given.append(options.device_locks)
        return real(model, sampling, options)

    monkeypatch.setattr(runner, "get_backend", spy)
    run(config(tmp_path, suite_dir, fast_eval, tasks=("scale_shift",)))
    assert given == [stub if on_gpu else ()]


def test_the_bar_names_the_samples_in_flight_and_the_first_slow_one_says_why(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(runner, "TICK_S", 0.02)
    monkeypatch.setattr(runner, "SLOW_S", 0.2)
    shown = io.StringIO()
    bar = tqdm(total=2, file=shown, mininterval=0)
    recorder = runner._Recorder(RunDir(tmp_path), [], {}, bar, slow_note="the inputs are large")
    caplog.set_level(logging.WARNING, logger="benchmark.runner")
    try:
        with activity.track("relu#0", "setup") as sample:
            sample.enter("timing")
            deadline = time.monotonic() + 10
            while "relu#0 timing" not in shown.getvalue() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert "relu#0 timing" in shown.getvalue()
            while not caplog.records and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(0.2)  # ticks go on: the note is said once
    finally:
        recorder.stop()
        bar.close()
    notes = [r.getMessage() for r in caplog.records]
    assert len(notes) == 1 and "relu#0 has run" in notes[0] and "(now: timing)" in notes[0]
    assert "the inputs are large" in notes[0]


def test_the_cpu_slow_note_names_the_phases_the_run_has():
    assert "timed side by side" in runner.cpu_slow_note(measure=True)
    untimed = runner.cpu_slow_note(measure=False)
    assert "timed" not in untimed and "correctness trials" in untimed and "--device cuda" in untimed
