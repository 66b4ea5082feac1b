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
