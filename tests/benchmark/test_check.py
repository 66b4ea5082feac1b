"""`benchmark.check`: exit status and the JSON verdict line."""

from __future__ import annotations

import json
import subprocess
import sys

from benchmark.evaluate.sandbox import PROJECT_ROOT


def check(*args):
    return subprocess.run(
        [sys.executable, "-m", "benchmark.check", *args],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=300,
    )


def test_json_verdict_on_last_line(data_dir):
    task = data_dir / "suite" / "level1" / "scale_shift.py"
    out = check(
        "--task",
        str(task),
        "--candidate",
        str(data_dir / "candidates" / "wrong_shape.py"),
        "--device",
        "cpu",
        "--json",
        "--no-strict",
        "--trials",
        "2",
    )
    assert out.returncode == 0, out.stderr
    verdict = json.loads(out.stdout.strip().splitlines()[-1])
    assert verdict["verdict"] == "incorrect"
    assert {"verdict", "correct", "flags", "speedup", "error"} <= set(verdict)
    assert verdict["correct"] is False


def test_missing_file_is_a_usage_error(data_dir, tmp_path):
    out = check("--task", str(tmp_path / "nope.py"), "--candidate", str(data_dir / "candidates" / "hang.py"))
    assert out.returncode == 2
    assert "no such task file" in out.stderr
    out = check(
        "--task", str(data_dir / "suite" / "level1" / "scale_shift.py"), "--candidate", str(tmp_path / "x.py")
    )
    assert out.returncode == 2 and "does not exist" in out.stderr


def last_json(out) -> dict:
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_json_answers_a_json_line_on_every_error(data_dir, tmp_path):
    task = str(data_dir / "suite" / "level1" / "scale_shift.py")
    out = check("--task", task, "--candidate", str(tmp_path / "x.py"), "--json")
    assert out.returncode == 2
    assert last_json(out) == {"verdict": None, "error": f"candidate file {tmp_path / 'x.py'} does not exist"}
    out = check("--candidate", str(tmp_path / "x.py"), "--json")  # a usage error: no --task
    assert out.returncode == 2 and "--task" in last_json(out)["error"] and last_json(out)["verdict"] is None


KERNELBENCH_TASK = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, a, b):
        return a + b


def get_inputs():
    a = torch.randn(1, 128).cuda()
    b = torch.randn(1, 128).cuda()
    return [a, b]


def get_init_inputs():
    return []
"""
ADD = """import torch


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return a + b
"""


def test_a_kernelbench_task_that_calls_cuda_is_checked_on_the_cpu(tmp_path):
    (tmp_path / "task.py").write_text(KERNELBENCH_TASK)
    (tmp_path / "candidate.py").write_text(ADD)
    out = check(
        "--task",
        str(tmp_path / "task.py"),
        "--candidate",
        str(tmp_path / "candidate.py"),
        "--device",
        "cpu",
        "--no-strict",
        "--no-timing",
        "--trials",
        "2",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    assert last_json(out)["verdict"] == "pass"
