"""Sandbox properties, one test each: secrets scrubbed, no network. Each property again for both ways
of starting a worker (spawned, forked from the zygote), and no orphan after a killed run: test_zygote.py."""

from __future__ import annotations

import dataclasses

from benchmark.harness import evaluate
from benchmark.sandbox import network_isolated, scrubbed_env
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
