"""`python -m benchmark.run` as a command: Ctrl-C stops it cleanly with the command that resumes it,
and runs of one model over different suites get different default folders."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import benchmark.run as run_module
from benchmark.evaluate.sandbox import PROJECT_ROOT
from benchmark.run import config_from_args, default_out, parse_args
from benchmark.run import main as run_main


def resume_line(argv: list[str]) -> str:
    return f"  python -m benchmark.run {shlex.join(argv)}\n"


def test_ctrl_c_stops_the_run_with_the_command_that_resumes_it(tmp_path, monkeypatch, capsys):
    def interrupted(config):
        signal.raise_signal(signal.SIGINT)  # Ctrl-C, mid-run
        raise AssertionError("the interrupt did not stop the run")

    monkeypatch.setattr(run_module, "run", interrupted)
    argv = ["--model", "reference", "--device", "cpu", "--out", str(tmp_path / "r"), "--quiet"]
    before = signal.getsignal(signal.SIGINT)
    assert run_main(argv) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "stopping: the samples being evaluated finish and are recorded (Ctrl-C again to stop now)" in err
    assert err.endswith(
        f"interrupted: the finished samples are in {tmp_path / 'r'}/results.jsonl; "
        "rerun the same command to resume:\n" + resume_line(argv)
    )
    assert signal.getsignal(signal.SIGINT) is before  # the command's handler is its own


def test_a_second_ctrl_c_stops_at_once(tmp_path, monkeypatch, capsys):
    def exit_now(code):
        raise SystemExit(code)

    def unwinding_slowly(config):
        try:
            signal.raise_signal(signal.SIGINT)
        finally:  # the run waits for the samples being evaluated; the user presses Ctrl-C again
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(run_module, "run", unwinding_slowly)
    monkeypatch.setattr(run_module.os, "_exit", exit_now)
    argv = ["--model", "reference", "--device", "cpu", "--out", str(tmp_path / "r")]
    with pytest.raises(SystemExit) as stopped:
        run_main(argv)
    assert stopped.value.code == 130
    err = capsys.readouterr().err
    assert err.count("rerun the same command to resume") == 1 and err.endswith(resume_line(argv))


@pytest.mark.slow
def test_ctrl_c_reaches_a_real_run_waiting_on_an_evaluation(tmp_path, data_dir):
    hang = (data_dir / "candidates" / "hang.py").read_text()
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        json.dumps({"task_id": "level1/scale_shift", "completion": f"```python\n{hang}```"}) + "\n"
    )
    out = tmp_path / "run"
    argv = ["--model", f"replay:{replay}", "--suite", str(data_dir / "suite"), "--tasks", "scale_shift"]
    argv += [
        "--device",
        "cpu",
        "--no-strict",
        "--no-timing",
        "--timeout",
        "600",
        "--out",
        str(out),
        "--quiet",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmark.run", *argv],
        cwd=PROJECT_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while (
            not (out / "completions.jsonl").exists() and proc.poll() is None and time.monotonic() < deadline
        ):
            time.sleep(0.5)
        time.sleep(2)  # the hanging candidate is being evaluated
        proc.send_signal(signal.SIGINT)
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "stopping:" in err and "Traceback" not in err
    assert err.endswith(resume_line(argv))


def test_runs_over_different_suites_default_to_different_folders(tmp_path):
    assert default_out("reference", None) == Path("runs/reference")
    assert default_out("openai:Qwen/Qwen3-8B", None) == Path("runs/openai_Qwen_Qwen3-8B")
    kb = tmp_path / "kernelbench" / "level1"
    assert default_out("reference", str(kb)) == Path("runs/reference@level1")
    assert default_out("reference", "hf:org/suite@v2") == Path("runs/reference@org_suite@v2")
    argv = ["--model", "reference", "--device", "cpu", "--suite", str(kb)]
    assert config_from_args(parse_args(argv), argv).out == Path("runs/reference@level1")
