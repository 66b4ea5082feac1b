"""Sandbox properties, one test each: secrets scrubbed, no network, no orphan after a killed run."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time

from benchmark.harness import evaluate
from benchmark.sandbox import PROJECT_ROOT, network_isolated, scrubbed_env
from benchmark.task import load_task
from benchmark.verdict import Status

LEAK = """import os
import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        raise RuntimeError("env:" + ",".join(sorted(k for k in os.environ if "TOKEN" in k or "KEY" in k)))
"""


def test_secrets_are_scrubbed(monkeypatch, data_dir, fast_eval):
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    env = scrubbed_env()
    assert "HF_TOKEN" not in env and "OPENAI_API_KEY" not in env and "PATH" in env
    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    verdict = evaluate(task, LEAK, dataclasses.replace(fast_eval, strict=False, measure=False))
    assert verdict.status is Status.RUNTIME_ERROR
    assert "env:" in verdict.error and "HF_TOKEN" not in verdict.error and "OPENAI" not in verdict.error


def test_children_get_no_network_where_the_os_allows():
    # On this kind of machine (root, unshare permitted) the child's namespace has no interfaces.
    assert network_isolated()


def test_killed_evaluator_leaves_no_worker(data_dir, tmp_path):
    code = (
        "from pathlib import Path\n"
        "from benchmark.harness import EvalConfig, evaluate\n"
        "from benchmark.task import load_task\n"
        f"task = load_task({str(data_dir / 'suite' / 'level1' / 'scale_shift.py')!r})\n"
        f"evaluate(task, Path({str(data_dir / 'candidates' / 'hang.py')!r}).read_text(),\n"
        f"         EvalConfig(device='cpu', strict=False, timeout_s=600, cache_dir=Path({str(tmp_path)!r})))\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=PROJECT_ROOT)
    worker = None
    for _ in range(120):
        kids = subprocess.run(["pgrep", "-P", str(parent.pid)], capture_output=True, text=True).stdout.split()
        if kids:
            worker = int(kids[0])
            break
        time.sleep(0.5)
    assert worker is not None, "the evaluation never started its worker"
    parent.kill()
    parent.wait()
    for _ in range(20):
        if subprocess.run(["kill", "-0", str(worker)], capture_output=True).returncode != 0:
            break
        time.sleep(0.5)
    else:
        raise AssertionError(f"worker {worker} outlived its killed parent")
